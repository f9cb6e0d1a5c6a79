package migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// This migration's counter of export-moving product changes was replaced by
// the per-organization generations of 1795272700_generations.go, which drops
// the table and triggers created here.

// productChangesTable counted, per organization, the changes that can move
// its export's pages other than additions: a product deleted, or moved in or
// out of the export (active, organization or id changed).
const productChangesTable = "_enrichment_product_changes"

// productChangeTriggers kept productChangesTable.
var productChangeTriggers = []string{
	"enrichment_product_changes_update",
	"enrichment_product_changes_delete",
}

func init() {
	m.Register(createProductChanges, dropProductChanges)
}

// createProductChanges creates this migration's table and triggers.
func createProductChanges(app core.App) error {
	bump := func(org string) string {
		return `INSERT INTO ` + productChangesTable + ` (organization, version) VALUES (` + org + `, 1)
			ON CONFLICT (organization) DO UPDATE SET version = version + 1;`
	}
	statements := []string{
		`CREATE TABLE ` + productChangesTable + ` (
			organization TEXT PRIMARY KEY NOT NULL,
			version      INTEGER NOT NULL
		) WITHOUT ROWID`,
		`CREATE TRIGGER ` + productChangeTriggers[0] + ` AFTER UPDATE OF organization, active, id ON products
		WHEN OLD.organization IS NOT NEW.organization OR OLD.active IS NOT NEW.active OR OLD.id IS NOT NEW.id
		BEGIN ` + bump("OLD.organization") + bump("NEW.organization") + ` END`,
		`CREATE TRIGGER ` + productChangeTriggers[1] + ` AFTER DELETE ON products
		BEGIN ` + bump("OLD.organization") + ` END`,
	}
	return execAll(app, statements)
}

// dropProductChanges removes this migration's triggers and table.
func dropProductChanges(app core.App) error {
	for _, t := range productChangeTriggers {
		if _, err := app.DB().NewQuery("DROP TRIGGER IF EXISTS " + t).Execute(); err != nil {
			return err
		}
	}
	_, err := app.DB().NewQuery("DROP TABLE IF EXISTS " + productChangesTable).Execute()
	return err
}
