package migrations

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// The merchant directs the work (docs/api.md, "Completeness and gaps"):
// products gain completeness, gaps and gapRank (hidden: the rank of the
// most important gap as sortable text), kept by the service with the
// products, and the gaps list's index (schema.IdxProductsGaps). This
// migration adds them and computes them for the products of the data
// folder, so an older folder has its completeness at its first start.
func init() {
	m.Register(func(app core.App) error {
		products, err := app.FindCollectionByNameOrId(schema.Products)
		if err != nil {
			return err
		}
		products.Fields.Add(
			&core.NumberField{Name: "completeness", OnlyInt: true, Min: new(0.0), Max: new(100.0)},
			&core.JSONField{Name: "gaps"},
			&core.TextField{Name: "gapRank", Hidden: true, Max: 300},
		)
		products.AddIndex(schema.IdxProductsGaps, false, "organization, gapRank, CAST(id AS INTEGER), completeness",
			"active = 1 AND gapRank != ''")
		if err := app.Save(products); err != nil {
			return fmt.Errorf("products' gaps: %w", err)
		}
		last := 0
		err = store.New(app).Catalog().RefreshAllGaps(func(done int) {
			if done-last >= 100_000 {
				last = done
				app.Logger().Info("completeness of the catalog", "products", done)
			}
		})
		if err != nil {
			return fmt.Errorf("compute the completeness of the catalog: %w", err)
		}
		return nil
	}, func(app core.App) error {
		products, err := app.FindCollectionByNameOrId(schema.Products)
		if err != nil {
			return err
		}
		products.RemoveIndex(schema.IdxProductsGaps)
		products.Fields.RemoveByName("completeness")
		products.Fields.RemoveByName("gaps")
		products.Fields.RemoveByName("gapRank")
		return app.Save(products)
	})
}
