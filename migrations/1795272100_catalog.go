package migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

func init() {
	m.Register(createCatalog, func(app core.App) error {
		return deleteCollections(app, "products", "brands", "attribute_options",
			"attribute_templates", "api_clients", "organizations")
	})
}

// createCatalog creates the organizations, their API clients and their
// catalog. Every collection is superusers-only here; the review migration
// opens what reviewers may see.
func createCatalog(app core.App) error {
	orgs := newNumericCollection("organizations")
	orgs.Fields.Add(&core.TextField{Name: "name", Required: true, Max: 200})
	addTimestamps(orgs)
	numericIDIndex(orgs)
	if err := app.Save(orgs); err != nil {
		return fmt.Errorf("organizations: %w", err)
	}

	clients := newNumericCollection("api_clients")
	clients.Fields.Add(
		organizationField(orgs),
		&core.TextField{Name: "name", Max: 200},
		// note: hidden, and hooks/api_clients.go hides it from superusers too
		&core.TextField{Name: "keyHash", Required: true, Hidden: true, Pattern: `^[0-9a-f]{64}$`},
		&core.TextField{Name: "keyPrefix", Max: 32},
		&core.SelectField{Name: "scopes", Required: true, MaxSelect: 2, Values: []string{"catalog:read", "catalog:submit"}},
		&core.BoolField{Name: "active"},
		&core.DateField{Name: "lastUsedAt"},
	)
	addTimestamps(clients)
	numericIDIndex(clients)
	clients.AddIndex("idx_api_clients_key_hash", true, "keyHash", "")
	clients.AddIndex("idx_api_clients_org", false, "organization", "")
	if err := app.Save(clients); err != nil {
		return fmt.Errorf("api_clients: %w", err)
	}

	templates := newNumericCollection("attribute_templates")
	templates.Fields.Add(
		organizationField(orgs),
		&core.TextField{Name: "name", Required: true, Max: 200},
		&core.BoolField{Name: "active"},
	)
	addTimestamps(templates)
	numericIDIndex(templates)
	templates.AddIndex("idx_attribute_templates_org_name", true, "organization, name", "")
	if err := app.Save(templates); err != nil {
		return fmt.Errorf("attribute_templates: %w", err)
	}

	options := newNumericCollection("attribute_options")
	options.Fields.Add(
		organizationField(orgs),
		&core.RelationField{Name: "template", CollectionId: templates.Id, MaxSelect: 1, Required: true, CascadeDelete: true},
		&core.TextField{Name: "attribute", Required: true, Max: 200},
		&core.TextField{Name: "unit", Max: 50},     // "" is shown as null
		&core.TextField{Name: "dataType", Max: 50}, // "" is shown as null
		&core.NumberField{Name: "priority", OnlyInt: true},
		&core.BoolField{Name: "showOnWebsite"},
		&core.BoolField{Name: "isSearchable"},
	)
	addTimestamps(options)
	numericIDIndex(options)
	options.AddIndex("idx_attribute_options_template_attr", true, "template, attribute", "")
	options.AddIndex("idx_attribute_options_org", false, "organization", "")
	if err := app.Save(options); err != nil {
		return fmt.Errorf("attribute_options: %w", err)
	}

	brands := newNumericCollection("brands")
	brands.Fields.Add(
		organizationField(orgs),
		&core.TextField{Name: "name", Required: true, Max: 200},
		&core.TextField{Name: "website", Max: 2000},
		&core.TextField{Name: "slug", Max: 200},
	)
	addTimestamps(brands)
	numericIDIndex(brands)
	brands.AddIndex("idx_brands_org_name", true, "organization, name", "")
	if err := app.Save(brands); err != nil {
		return fmt.Errorf("brands: %w", err)
	}

	return createProducts(app, orgs, templates, brands)
}

func createProducts(app core.App, orgs, templates, brands *core.Collection) error {
	products := newNumericCollection("products")
	products.Fields.Add(
		organizationField(orgs),
		&core.TextField{Name: "sku", Required: true, Max: 200},
		&core.TextField{Name: "externalId", Max: 200},
		&core.TextField{Name: "gtin", Max: 50},
		&core.TextField{Name: "name", Max: 1000},
		&core.TextField{Name: "slug", Max: 1000},
		&core.TextField{Name: "description", Max: 100000},
		&core.BoolField{Name: "active"},
		&core.RelationField{Name: "attributeTemplate", CollectionId: templates.Id, MaxSelect: 1},
		&core.RelationField{Name: "brand", CollectionId: brands.Id, MaxSelect: 1},
		// [{attribute, detail, optionId?}]: optionId links a template option
		&core.JSONField{Name: "attributes"},
		&core.JSONField{Name: "categories"},
		&core.JSONField{Name: "images"},
		&core.JSONField{Name: "files"},
		&core.JSONField{Name: "variantAttributes"},
	)
	addTimestamps(products)
	numericIDIndex(products)
	// export: active products of one organization in numeric id order
	products.AddIndex("idx_products_export", false, "organization, active, CAST(id AS INTEGER)", "")
	products.AddIndex("idx_products_sku", false, "organization, sku", "")
	products.AddIndex("idx_products_updated", false, "organization, updated", "")
	products.AddIndex("idx_products_external_id", false, "organization, externalId", "externalId != ''")
	if err := app.Save(products); err != nil {
		return fmt.Errorf("products: %w", err)
	}

	// the self-relation needs the collection's id, known only after the first save
	products.Fields.Add(&core.RelationField{Name: "variantMaster", CollectionId: products.Id, MaxSelect: 1})
	products.AddIndex("idx_products_variant_master", false, "organization, variantMaster", "variantMaster != ''")
	if err := app.Save(products); err != nil {
		return fmt.Errorf("products.variantMaster: %w", err)
	}
	return nil
}

// deleteCollections deletes the named collections in order, skipping missing ones.
func deleteCollections(app core.App, names ...string) error {
	for _, name := range names {
		c, err := app.FindCollectionByNameOrId(name)
		if err != nil {
			continue
		}
		if err := app.Delete(c); err != nil {
			return fmt.Errorf("delete %s: %w", name, err)
		}
	}
	return nil
}
