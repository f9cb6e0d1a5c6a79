package migrations

import (
	"fmt"
	"strings"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Metrics per field (store/metric_counts.go): the counters gain
// "corrected" and, per enrichable field, how many reviewed revisions
// proposed it, had it applied and had it corrected. Each decided revision
// keeps what its decision did per field in revisions.decisionMask (bit i:
// the field at place i of name, slug, description, attributes, files was
// proposed; bit 5+i: applied; bit 10+i: corrected), indexed by client and
// reviewedAt for the partial hours at a window's edges. This migration
// sets the mask of the revisions decided before and counts them, in the
// client's counters and in the model counters of 1795274300.
func init() {
	fields := []string{"name", "slug", "description", "attributes", "files"}
	decided := `status IN ('accepted', 'rejected')`
	accepted := `status = 'accepted'`
	has := func(column, value string) string {
		return `EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(` + column + `) THEN ` + column + ` ELSE '[]' END) WHERE value = '` + value + `')`
	}
	corrected := func(match string) string {
		return `EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(corrections) THEN corrections ELSE '{}' END) WHERE ` + match + `)`
	}
	counters := [][2]string{{"corrected", accepted + ` AND ` + corrected(`key IS NOT NULL`)}}
	var mask []string
	for i, f := range fields {
		proposed := `COALESCE(CASE WHEN json_valid(proposed) THEN json_type(proposed, '$.` + f + `') END, 'null') != 'null'`
		applied := accepted + ` AND ` + proposed + ` AND ` + has("approvedFields", f) + ` AND NOT ` + has("supersededFields", f)
		match := `key = '` + f + `'`
		if f == "attributes" {
			match = `key LIKE 'attributes.%'`
		}
		counters = append(counters,
			[2]string{"proposed_" + f, decided + ` AND ` + proposed},
			[2]string{"applied_" + f, applied},
			[2]string{"corrected_" + f, accepted + ` AND ` + corrected(match)})
		mask = append(mask,
			fmt.Sprintf(`((%s) << %d)`, proposed, i),
			fmt.Sprintf(`((%s) << %d)`, applied, 5+i),
			fmt.Sprintf(`((%s AND %s) << %d)`, accepted, corrected(match), 10+i))
	}
	m.Register(func(app core.App) error {
		revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
		if err != nil {
			return err
		}
		revisions.Fields.Add(&core.NumberField{Name: "decisionMask", OnlyInt: true, Hidden: true,
			Help: "Set by the service with a decision: what it did per field, for the metrics (bit i proposed, 5+i applied, 10+i corrected)."})
		revisions.AddIndex(schema.IdxRevisionsDecidedFields, false, "organization, apiClient, reviewedAt, decisionMask",
			"status IN ('accepted', 'rejected')")
		if err := app.Save(revisions); err != nil {
			return fmt.Errorf("revisions: %w", err)
		}
		statements := []string{`UPDATE revisions SET decisionMask = ` + strings.Join(mask, " | ") + ` WHERE ` + decided}
		var names, sums, set []string
		for _, c := range counters {
			statements = append(statements,
				`ALTER TABLE `+schema.MetricCountsTable+` ADD COLUMN `+c[0]+` INTEGER NOT NULL DEFAULT 0`,
				`ALTER TABLE `+schema.ModelCountsTable+` ADD COLUMN `+c[0]+` INTEGER NOT NULL DEFAULT 0`)
			names = append(names, c[0])
			sums = append(sums, "SUM("+c[1]+")")
			set = append(set, c[0]+" = excluded."+c[0])
		}
		// note: the bucket starts in PocketBase's date format; only decided
		// revisions count here, by reviewedAt
		for span, start := range map[string]string{
			"all":   `''`,
			"month": `strftime('%Y-%m-01 00:00:00.000Z', reviewedAt)`,
			"day":   `strftime('%Y-%m-%d 00:00:00.000Z', reviewedAt)`,
			"hour":  `strftime('%Y-%m-%d %H:00:00.000Z', reviewedAt)`,
		} {
			statements = append(statements, `INSERT INTO `+schema.MetricCountsTable+`
				(organization, client, span, start, `+strings.Join(names, ", ")+`)
				SELECT organization, apiClient, '`+span+`', `+start+`, `+strings.Join(sums, ", ")+`
				FROM revisions WHERE `+decided+` GROUP BY 1, 2, 3, 4
				ON CONFLICT (organization, client, span, start) DO UPDATE SET `+strings.Join(set, ", "),
				// and the model counters (migrations/1795274300_model_counts.go)
				`INSERT INTO `+schema.ModelCountsTable+`
				(organization, client, span, start, model, version, `+strings.Join(names, ", ")+`)
				SELECT organization, apiClient, '`+span+`', `+start+`, model ->> '$.name', model ->> '$.version', `+strings.Join(sums, ", ")+`
				FROM revisions WHERE `+decided+` AND json_type(model) = 'object' GROUP BY 1, 2, 3, 4, 5, 6
				ON CONFLICT (organization, client, span, start, model, version) DO UPDATE SET `+strings.Join(set, ", "))
		}
		return execAll(app, statements)
	}, func(app core.App) error {
		var statements []string
		for _, c := range counters {
			statements = append(statements, `ALTER TABLE `+schema.MetricCountsTable+` DROP COLUMN `+c[0],
				`ALTER TABLE `+schema.ModelCountsTable+` DROP COLUMN `+c[0])
		}
		if err := execAll(app, statements); err != nil {
			return err
		}
		revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
		if err != nil {
			return err
		}
		revisions.RemoveIndex(schema.IdxRevisionsDecidedFields)
		revisions.Fields.RemoveByName("decisionMask")
		return app.Save(revisions)
	})
}
