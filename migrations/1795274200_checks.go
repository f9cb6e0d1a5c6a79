package migrations

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Proposals are checked before review, with their evidence and the model
// that made them (docs/api.md, "Checks"): revisions keep what the checks
// found, the model and the sources, and products gain an index by slug,
// which the check of a slug another product has looks up once per batch.
// Revisions stored before keep NULL in the new fields, which the API shows
// as [] and null.
func init() {
	m.Register(func(app core.App) error {
		revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
		if err != nil {
			return err
		}
		revisions.Fields.Add(
			&core.JSONField{Name: "issues", Help: "What the checks found when the proposal was submitted: field, code, severity, message."},
			&core.JSONField{Name: "model", Help: "The model that made the proposal, {name, version}; null when not said."},
			&core.JSONField{Name: "sources", Help: "The vendor's evidence: up to 10 of {field, url, quote}. Never fetched by the server."},
		)
		if err := app.Save(revisions); err != nil {
			return fmt.Errorf("revisions: %w", err)
		}
		products, err := app.FindCollectionByNameOrId(schema.Products)
		if err != nil {
			return err
		}
		products.AddIndex(schema.IdxProductsSlug, false, "organization, slug", "slug != ''")
		if err := app.Save(products); err != nil {
			return fmt.Errorf("products: %w", err)
		}
		return nil
	}, func(app core.App) error {
		products, err := app.FindCollectionByNameOrId(schema.Products)
		if err != nil {
			return err
		}
		products.RemoveIndex(schema.IdxProductsSlug)
		if err := app.Save(products); err != nil {
			return err
		}
		revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
		if err != nil {
			return err
		}
		for _, name := range []string{"issues", "model", "sources"} {
			revisions.Fields.RemoveByName(name)
		}
		return app.Save(revisions)
	})
}
