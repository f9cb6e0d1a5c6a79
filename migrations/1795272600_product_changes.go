package migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// ProductChangesTable counts, per organization, the changes that can move
// its export's pages other than additions: a product deleted, or moved in or
// out of the export (active, organization or id changed). Triggers keep it,
// so writes from anywhere count: the API, the dashboard, the import, another
// process. Additions need no trigger (one on INSERT made the import 40%
// slower): every insert raises the table's largest rowid.
const ProductChangesTable = "_enrichment_product_changes"

// ProductChangeTriggers names the triggers; the export checks all of them
// still exist before trusting the counter.
var ProductChangeTriggers = []string{
	"enrichment_product_changes_update",
	"enrichment_product_changes_delete",
}

func init() {
	bump := func(org string) string {
		return `INSERT INTO ` + ProductChangesTable + ` (organization, version) VALUES (` + org + `, 1)
			ON CONFLICT (organization) DO UPDATE SET version = version + 1;`
	}
	statements := []string{
		`CREATE TABLE ` + ProductChangesTable + ` (
			organization TEXT PRIMARY KEY NOT NULL,
			version      INTEGER NOT NULL
		) WITHOUT ROWID`,
		`CREATE TRIGGER ` + ProductChangeTriggers[0] + ` AFTER UPDATE OF organization, active, id ON products
		WHEN OLD.organization IS NOT NEW.organization OR OLD.active IS NOT NEW.active OR OLD.id IS NOT NEW.id
		BEGIN ` + bump("OLD.organization") + bump("NEW.organization") + ` END`,
		`CREATE TRIGGER ` + ProductChangeTriggers[1] + ` AFTER DELETE ON products
		BEGIN ` + bump("OLD.organization") + ` END`,
	}
	m.Register(func(app core.App) error {
		for _, s := range statements {
			if _, err := app.DB().NewQuery(s).Execute(); err != nil {
				return err
			}
		}
		return nil
	}, func(app core.App) error {
		for _, t := range ProductChangeTriggers {
			if _, err := app.DB().NewQuery("DROP TRIGGER IF EXISTS " + t).Execute(); err != nil {
				return err
			}
		}
		_, err := app.DB().DropTable(ProductChangesTable).Execute()
		return err
	})
}
