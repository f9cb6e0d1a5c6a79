package migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Exact Shopify round trips (docs/catalog-format.md, "Export"):
// products.shopify remembers, per product imported from a Shopify CSV,
// what the Shopify CSV export must write back as it was: Status,
// Published, Product Category and Type, the variant's Variant Image, and
// each metafield attribute's label and NS.KEY. Products of earlier
// imports have none, and are exported by the fallback rules.

func init() {
	m.Register(addShopifyMemory, dropShopifyMemory)
}

func addShopifyMemory(app core.App) error {
	products, err := app.FindCollectionByNameOrId("products")
	if err != nil {
		return err
	}
	products.Fields.Add(&core.JSONField{Name: "shopify", Hidden: true, MaxSize: 1 << 20,
		Help: "Set by the Shopify CSV import: the columns the Shopify CSV export writes back as they were imported."})
	if err := app.Save(products); err != nil {
		return fmt.Errorf("products.shopify: %w", err)
	}
	return nil
}

func dropShopifyMemory(app core.App) error {
	products, err := app.FindCollectionByNameOrId("products")
	if err != nil {
		return err
	}
	products.Fields.RemoveByName("shopify")
	if err := app.Save(products); err != nil {
		return fmt.Errorf("products.shopify: %w", err)
	}
	return nil
}
