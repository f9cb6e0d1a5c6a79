package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Metric counters (store/metric_counts.go): how many revisions of each API
// client are in each state, by confidence band and reason, over all time,
// per month and per day of the moment that counts for the state (created
// while pending, reviewedAt once decided, closedAt once superseded or
// expired). The store keeps them in the transactions that change states;
// this migration counts the revisions that exist already.
func init() {
	m.Register(func(app core.App) error {
		statements := []string{
			`CREATE TABLE ` + schema.MetricCountsTable + ` (
				organization TEXT NOT NULL,
				client       TEXT NOT NULL,
				span         TEXT NOT NULL,
				start        TEXT NOT NULL,
				status       TEXT NOT NULL,
				band         TEXT NOT NULL,
				reason       TEXT NOT NULL,
				n            INTEGER NOT NULL,
				PRIMARY KEY (organization, client, span, start, status, band, reason)
			) WITHOUT ROWID`,
			`CREATE TRIGGER ` + schema.MetricCountsOrgTrigger + ` AFTER DELETE ON organizations
			BEGIN DELETE FROM ` + schema.MetricCountsTable + ` WHERE organization = OLD.id; END`,
		}
		// note: the moment that counts for each state, and the bucket starts
		// in PocketBase's date format
		const at = `CASE status WHEN 'pending' THEN created WHEN 'accepted' THEN reviewedAt WHEN 'rejected' THEN reviewedAt ELSE closedAt END`
		decided := `status IN ('accepted', 'rejected')`
		for span, start := range map[string]string{
			"all":   `''`,
			"month": `strftime('%Y-%m-01 00:00:00.000Z', ` + at + `)`,
			"day":   `strftime('%Y-%m-%d 00:00:00.000Z', ` + at + `)`,
		} {
			statements = append(statements, `INSERT INTO `+schema.MetricCountsTable+`
				SELECT organization, apiClient, '`+span+`', `+start+`, status,
					CASE WHEN `+decided+` THEN confidenceBand ELSE '' END,
					CASE WHEN `+decided+` THEN reason ELSE '' END, COUNT(*)
				FROM revisions GROUP BY 1, 2, 3, 4, 5, 6, 7`)
		}
		return execAll(app, statements)
	}, func(app core.App) error {
		return execAll(app, []string{
			"DROP TRIGGER IF EXISTS " + schema.MetricCountsOrgTrigger,
			"DROP TABLE IF EXISTS " + schema.MetricCountsTable,
		})
	})
}
