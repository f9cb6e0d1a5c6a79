package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// What vendors filled (docs/api.md): the metric counters gain slotsFilled,
// the gaps of products that a client's accepted revisions filled. A
// decision keeps the number in its decisionMask (bits 16 to 23,
// enrichment.FieldMask), which the counters and a window's edges read;
// decisions made before this release filled none that anyone counted.
func init() {
	m.Register(func(app core.App) error {
		return execAll(app, []string{
			`ALTER TABLE ` + schema.MetricCountsTable + ` ADD COLUMN slotsFilled INTEGER NOT NULL DEFAULT 0`,
			`ALTER TABLE ` + schema.ModelCountsTable + ` ADD COLUMN slotsFilled INTEGER NOT NULL DEFAULT 0`,
		})
	}, func(app core.App) error {
		return execAll(app, []string{
			`ALTER TABLE ` + schema.MetricCountsTable + ` DROP COLUMN slotsFilled`,
			`ALTER TABLE ` + schema.ModelCountsTable + ` DROP COLUMN slotsFilled`,
		})
	})
}
