package migrations

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// The merchant directs the work (docs/gaps.md): the gaps index, one row per
// active product with a gap (schema.GapsTable), kept by the service with
// the products. This migration creates it and fills it from the products
// of the data folder, so an older folder has its completeness at its first
// start.
func init() {
	m.Register(func(app core.App) error {
		statements := []string{
			`CREATE TABLE ` + schema.GapsTable + ` (
				product      INTEGER PRIMARY KEY,
				organization TEXT NOT NULL,
				template     TEXT NOT NULL,
				brand        TEXT NOT NULL,
				categories   TEXT NOT NULL,
				class        INTEGER NOT NULL,
				priority     INTEGER NOT NULL,
				name         TEXT NOT NULL,
				completeness INTEGER NOT NULL,
				gaps         TEXT NOT NULL
			)`,
			`CREATE INDEX ` + schema.IdxGapsOrder + ` ON ` + schema.GapsTable +
				` (organization, class, priority, name, product, completeness)`,
			`CREATE TRIGGER ` + schema.GapsDeleteTrigger + ` AFTER DELETE ON products
			BEGIN DELETE FROM ` + schema.GapsTable + ` WHERE product = CAST(OLD.id AS INTEGER); END`,
		}
		if err := execAll(app, statements); err != nil {
			return err
		}
		last := 0
		err := store.New(app).Catalog().RefreshAllGaps(func(done int) {
			if done-last >= 100_000 {
				last = done
				app.Logger().Info("completeness of the catalog", "products", done)
			}
		})
		if err != nil {
			return fmt.Errorf("fill the gaps index: %w", err)
		}
		return nil
	}, func(app core.App) error {
		return execAll(app, []string{"DROP TRIGGER IF EXISTS " + schema.GapsDeleteTrigger,
			"DROP TABLE IF EXISTS " + schema.GapsTable})
	})
}
