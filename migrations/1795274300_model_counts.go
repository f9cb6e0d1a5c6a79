package migrations

import (
	"strings"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Model counters (store/metric_counts.go): the metric counters of
// 1795273000_metric_counts.go once more per model name and version, for the
// revisions submitted with a model, so that acceptance-rate's model filters
// and byModel read bucket rows rather than revisions. The key puts the
// bucket before the model: a window's buckets are range seeks, each holding
// the few model versions the client used then. The decided revisions that
// name a model get an index with the model (a short JSON object), so that
// byModel reads the edges of a window from index entries alone; it is
// written when a revision is decided, never when one is submitted.
func init() {
	decided := `status IN ('accepted', 'rejected')`
	counters := [][2]string{
		{"pending", `status = 'pending'`},
		{"accepted", `status = 'accepted'`},
		{"rejected", `status = 'rejected'`},
		{"superseded", `status = 'superseded'`},
		{"expired", `status = 'expired'`},
		{"reviewed_0_49", decided + ` AND confidenceBand = '0-49'`},
		{"accepted_0_49", `status = 'accepted' AND confidenceBand = '0-49'`},
		{"reviewed_50_79", decided + ` AND confidenceBand = '50-79'`},
		{"accepted_50_79", `status = 'accepted' AND confidenceBand = '50-79'`},
		{"reviewed_80_100", decided + ` AND confidenceBand = '80-100'`},
		{"accepted_80_100", `status = 'accepted' AND confidenceBand = '80-100'`},
		{"reason_inaccurate", decided + ` AND reason = 'inaccurate'`},
		{"reason_low_quality", decided + ` AND reason = 'low_quality'`},
		{"reason_off_brand", decided + ` AND reason = 'off_brand'`},
		{"reason_incomplete", decided + ` AND reason = 'incomplete'`},
		{"reason_duplicate", decided + ` AND reason = 'duplicate'`},
		{"reason_other", decided + ` AND reason = 'other'`},
	}
	var columns, names, sums []string
	for _, c := range counters {
		columns = append(columns, c[0]+" INTEGER NOT NULL DEFAULT 0")
		names = append(names, c[0])
		sums = append(sums, "SUM("+c[1]+")")
	}
	m.Register(func(app core.App) error {
		statements := []string{
			`CREATE TABLE ` + schema.ModelCountsTable + ` (
				organization TEXT NOT NULL,
				client       TEXT NOT NULL,
				span         TEXT NOT NULL,
				start        TEXT NOT NULL,
				model        TEXT NOT NULL,
				version      TEXT NOT NULL,
				` + strings.Join(columns, ",\n\t\t\t\t") + `,
				PRIMARY KEY (organization, client, span, start, model, version)
			) WITHOUT ROWID`,
			`CREATE TRIGGER ` + schema.ModelCountsOrgTrigger + ` AFTER DELETE ON organizations
			BEGIN DELETE FROM ` + schema.ModelCountsTable + ` WHERE organization = OLD.id; END`,
		}
		const at = `CASE status WHEN 'pending' THEN created WHEN 'accepted' THEN reviewedAt WHEN 'rejected' THEN reviewedAt ELSE closedAt END`
		for span, start := range map[string]string{
			"all":   `''`,
			"month": `strftime('%Y-%m-01 00:00:00.000Z', ` + at + `)`,
			"day":   `strftime('%Y-%m-%d 00:00:00.000Z', ` + at + `)`,
			"hour":  `strftime('%Y-%m-%d %H:00:00.000Z', ` + at + `)`,
		} {
			statements = append(statements, `INSERT INTO `+schema.ModelCountsTable+`
				(organization, client, span, start, model, version, `+strings.Join(names, ", ")+`)
				SELECT organization, apiClient, '`+span+`', `+start+`, model ->> '$.name', model ->> '$.version', `+strings.Join(sums, ", ")+`
				FROM revisions WHERE json_type(model) = 'object' GROUP BY 1, 2, 3, 4, 5, 6`)
		}
		if err := execAll(app, statements); err != nil {
			return err
		}
		revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
		if err != nil {
			return err
		}
		// note: the model itself, not expressions of it: SQLite reads an
		// expression from an index only when the column is there too
		revisions.AddIndex(schema.IdxRevisionsDecidedModel, false,
			"organization, apiClient, status, confidenceBand, reason, reviewedAt, model",
			"status IN ('accepted', 'rejected') AND json_type(model) = 'object'")
		return app.Save(revisions)
	}, func(app core.App) error {
		revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
		if err != nil {
			return err
		}
		revisions.RemoveIndex(schema.IdxRevisionsDecidedModel)
		if err := app.Save(revisions); err != nil {
			return err
		}
		return execAll(app, []string{
			"DROP TRIGGER IF EXISTS " + schema.ModelCountsOrgTrigger,
			"DROP TABLE IF EXISTS " + schema.ModelCountsTable,
		})
	})
}
