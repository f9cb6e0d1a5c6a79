package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// The organizations' completeness per day (docs/review.md, the overview):
// one row per organization and day, the mean completeness of its active
// products and their number, kept by an hourly job from the day this
// release first runs (nothing earlier was measured).
func init() {
	m.Register(func(app core.App) error {
		return execAll(app, []string{
			`CREATE TABLE ` + schema.CompletenessHistoryTable + ` (
				organization TEXT NOT NULL,
				day          TEXT NOT NULL,
				completeness REAL NOT NULL,
				products     INTEGER NOT NULL,
				PRIMARY KEY (organization, day)
			) WITHOUT ROWID`,
			`CREATE TRIGGER ` + schema.CompletenessHistoryOrgTrigger + ` AFTER DELETE ON organizations
			BEGIN DELETE FROM ` + schema.CompletenessHistoryTable + ` WHERE organization = OLD.id; END`,
		})
	}, func(app core.App) error {
		return execAll(app, []string{"DROP TRIGGER IF EXISTS " + schema.CompletenessHistoryOrgTrigger,
			"DROP TABLE IF EXISTS " + schema.CompletenessHistoryTable})
	})
}
