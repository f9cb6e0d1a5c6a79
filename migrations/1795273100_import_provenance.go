package migrations

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Imports that respect enrichment (docs/catalog-format.md):
//
//   - products.importHash: a digest of what the catalog import last wrote to
//     the product, so that a product the file leaves unchanged is not
//     written; a trigger clears it whenever anything else changes a column
//     the import writes, so a digest on record always describes the row.
//   - revisions.overwrittenFields: the applied fields that a later import
//     replaced with the file's value.
//   - a table of accepted values: per product and field (per attribute name
//     for attributes), the revision that set it, the value it set and the
//     value before, which tells a stale feed from a real change.

// importedColumns are the product columns a catalog import writes.
const importedColumns = "organization, id, sku, externalId, gtin, name, slug, description, active, attributeTemplate, " +
	"brand, variantMaster, attributes, categories, images, files, variantAttributes"

func init() {
	m.Register(addImportProvenance, dropImportProvenance)
}

func addImportProvenance(app core.App) error {
	products, err := app.FindCollectionByNameOrId("products")
	if err != nil {
		return err
	}
	products.Fields.Add(&core.TextField{Name: "importHash", Hidden: true, Max: 64,
		Help: "Set by the catalog import: a digest of the values it last wrote. Cleared when anything else changes the product."})
	if err := app.Save(products); err != nil {
		return fmt.Errorf("products.importHash: %w", err)
	}

	revisions, err := app.FindCollectionByNameOrId("revisions")
	if err != nil {
		return err
	}
	revisions.Fields.Add(&core.SelectField{Name: "overwrittenFields", MaxSelect: 5,
		Values: []string{"name", "slug", "description", "attributes", "files"},
		Help:   "Applied fields that a later catalog import replaced with the file's value."})
	if err := app.Save(revisions); err != nil {
		return fmt.Errorf("revisions.overwrittenFields: %w", err)
	}

	return execAll(app, []string{
		// values are text (the JSON array for files); before is NULL for an
		// attribute the product did not have
		`CREATE TABLE ` + schema.AcceptedValuesTable + ` (
			organization TEXT NOT NULL,
			product      TEXT NOT NULL,
			field        TEXT NOT NULL,
			attribute    TEXT NOT NULL DEFAULT '',
			revision     TEXT NOT NULL,
			before       TEXT,
			applied      TEXT NOT NULL,
			PRIMARY KEY (product, field, attribute)
		) WITHOUT ROWID`,
		`CREATE INDEX idx_enrichment_accepted_values_org ON ` + schema.AcceptedValuesTable + ` (organization, product)`,
		// note: an UPDATE trigger only; an INSERT trigger of any kind makes
		// the import markedly slower, and a new row has no digest to clear
		`CREATE TRIGGER ` + schema.ImportHashTrigger + ` AFTER UPDATE OF ` + importedColumns + ` ON products
		WHEN OLD.importHash != '' AND NEW.importHash IS OLD.importHash
		BEGIN UPDATE products SET importHash = '' WHERE id = NEW.id; END`,
		`CREATE TRIGGER ` + schema.AcceptedValuesCleanupTrigger + ` AFTER DELETE ON products
		BEGIN DELETE FROM ` + schema.AcceptedValuesTable + ` WHERE product = OLD.id; END`,
	})
}

func dropImportProvenance(app core.App) error {
	err := execAll(app, []string{
		"DROP TRIGGER IF EXISTS " + schema.ImportHashTrigger,
		"DROP TRIGGER IF EXISTS " + schema.AcceptedValuesCleanupTrigger,
		"DROP TABLE IF EXISTS " + schema.AcceptedValuesTable,
	})
	if err != nil {
		return err
	}
	for name, field := range map[string]string{"products": "importHash", "revisions": "overwrittenFields"} {
		c, err := app.FindCollectionByNameOrId(name)
		if err != nil {
			return err
		}
		c.Fields.RemoveByName(field)
		if err := app.Save(c); err != nil {
			return fmt.Errorf("%s.%s: %w", name, field, err)
		}
	}
	return nil
}
