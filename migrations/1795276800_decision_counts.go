package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Operators' metrics (opsmetrics/): decisions by who made them, counted
// by a trigger in the transaction of each decision whatever path wrote it,
// and seeded here from the revisions decided so far (a reverted revision
// was decided too); and an index of the all-time metric counters, so the
// pending gauges read one row per API client instead of every bucket.
func init() {
	m.Register(func(app core.App) error {
		return execAll(app, []string{
			`CREATE TABLE ` + schema.DecisionCountsTable + ` (
				decidedBy TEXT PRIMARY KEY NOT NULL,
				n         INTEGER NOT NULL DEFAULT 0
			) WITHOUT ROWID`,
			`INSERT INTO ` + schema.DecisionCountsTable + ` (decidedBy, n)
				SELECT COALESCE(NULLIF(decidedBy, ''), 'reviewer'), COUNT(*) FROM revisions
				WHERE status IN ('accepted', 'rejected', 'reverted') GROUP BY 1`,
			decisionCountsTrigger,
			`CREATE INDEX ` + schema.IdxMetricCountsAll + ` ON ` + schema.MetricCountsTable +
				` (organization, pending) WHERE span = 'all'`,
		})
	}, func(app core.App) error {
		return execAll(app, []string{
			"DROP INDEX IF EXISTS " + schema.IdxMetricCountsAll,
			"DROP TRIGGER IF EXISTS " + schema.DecisionCountsTrigger,
			"DROP TABLE IF EXISTS " + schema.DecisionCountsTable,
		})
	})
}

// decisionCountsTrigger counted each decided revision, until
// 1795276900 had each set of decisions count itself; its down migration
// brings it back.
const decisionCountsTrigger = `CREATE TRIGGER ` + schema.DecisionCountsTrigger + ` AFTER UPDATE OF status ON revisions
	WHEN OLD.status = 'pending' AND NEW.status IN ('accepted', 'rejected')
	BEGIN
		INSERT INTO ` + schema.DecisionCountsTable + ` (decidedBy, n)
		VALUES (COALESCE(NULLIF(NEW.decidedBy, ''), 'reviewer'), 1)
		ON CONFLICT (decidedBy) DO UPDATE SET n = n + 1;
	END`
