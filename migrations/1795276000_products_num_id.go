package migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// A product row carried eight index entries; this drops the one no query
// needs: idx_products_num_id, the unique index of the numeric id. Every
// query of products names its organization and reads one of the others
// (the export's pages and order: idx_products_export; SKUs:
// idx_products_sku; modifiedSince: idx_products_updated; the import's
// externalIds: idx_products_external_id; variants: idx_products_variant_master;
// slugs: idx_products_slug; an id: the primary key). Its uniqueness adds
// nothing: ids match schema.NumericIDPattern, which has no leading zero, so
// two ids equal as numbers are equal as text, which the primary key already
// refuses. The other collections keep theirs.
const productsNumIDIndex = "idx_products_num_id"

func init() {
	m.Register(func(app core.App) error {
		return changeProductIndexes(app, func(c *core.Collection) { c.RemoveIndex(productsNumIDIndex) })
	}, func(app core.App) error {
		return changeProductIndexes(app, numericIDIndex)
	})
}

// changeProductIndexes changes the products collection's indexes and saves it.
func changeProductIndexes(app core.App, change func(c *core.Collection)) error {
	c, err := app.FindCollectionByNameOrId("products")
	if err != nil {
		return fmt.Errorf("products: %w", err)
	}
	change(c)
	if err := app.Save(c); err != nil {
		return fmt.Errorf("products indexes: %w", err)
	}
	return nil
}
