package migrations

import (
	"fmt"
	"strings"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Client catalogs (docs/api.md): an API client's catalog selection, and a
// change feed that can tell, for each client, whether a change moved a
// product into its selection or out of it.
//
//   - api_clients gain catalog (JSON: templates, brands, categories), set
//     by superusers; the generation trigger of API clients watches it, so
//     every cached answer of the organization is computed again;
//   - the change feed's rows gain what the selection is decided on, before
//     (old*, NULL when the product was not in the export) and after the
//     change (template, brand, categories, NULL for a removal), and client:
//     ” for a change every client sees, an API client's id for an entry
//     or a removal that only a change of its selection caused.
func init() {
	clientColumns := "organization, name, keyHash, keyPrefix, scopes, active, rateLimit, previousKeyHash, previousKeyExpiresAt, catalog"
	bump := func(org string) string {
		return `INSERT INTO ` + schema.GenerationsTable + ` (organization, generation) VALUES (` + org + `, 1)
			ON CONFLICT (organization) DO UPDATE SET generation = generation + 1;`
	}
	row := func(org, product, sku, change, now, before string) string {
		values := func(p string) string {
			if p == "" {
				return "NULL, NULL, NULL"
			}
			return p + ".attributeTemplate, " + p + ".brand, COALESCE(" + p + ".categories, '[]')"
		}
		var old string
		switch before {
		case "":
			old = values("")
		case "OLD":
			old = values("OLD")
		default: // the product was in the export before only if it was active in the same organization
			old = `CASE WHEN OLD.active AND OLD.organization = NEW.organization THEN OLD.attributeTemplate END,
				CASE WHEN OLD.active AND OLD.organization = NEW.organization THEN OLD.brand END,
				CASE WHEN OLD.active AND OLD.organization = NEW.organization THEN COALESCE(OLD.categories, '[]') END`
		}
		return `INSERT INTO ` + schema.ChangesTable + ` (organization, product, sku, change, at,
				template, brand, categories, oldTemplate, oldBrand, oldCategories)
			VALUES (` + org + `, ` + product + `, ` + sku + `, '` + change + `', strftime('%Y-%m-%d %H:%M:%fZ', 'now'), ` +
			values(now) + `, ` + old + `);`
	}
	t := schema.ChangeTriggers
	up := []string{
		"DROP TRIGGER IF EXISTS " + schema.GenerationTriggers[1],
		`CREATE TRIGGER ` + schema.GenerationTriggers[1] + ` AFTER UPDATE OF ` + clientColumns + ` ON api_clients
		BEGIN ` + bump("OLD.organization") + bump("NEW.organization") + ` END`,
		`ALTER TABLE ` + schema.ChangesTable + ` ADD COLUMN client TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE ` + schema.ChangesTable + ` ADD COLUMN template TEXT`,
		`ALTER TABLE ` + schema.ChangesTable + ` ADD COLUMN brand TEXT`,
		`ALTER TABLE ` + schema.ChangesTable + ` ADD COLUMN categories TEXT`,
		`ALTER TABLE ` + schema.ChangesTable + ` ADD COLUMN oldTemplate TEXT`,
		`ALTER TABLE ` + schema.ChangesTable + ` ADD COLUMN oldBrand TEXT`,
		`ALTER TABLE ` + schema.ChangesTable + ` ADD COLUMN oldCategories TEXT`,
		"DROP TRIGGER IF EXISTS " + t[0],
		"DROP TRIGGER IF EXISTS " + t[1],
		"DROP TRIGGER IF EXISTS " + t[2],
		`CREATE TRIGGER ` + t[0] + ` AFTER UPDATE ON products
		WHEN NEW.active AND (NOT OLD.active OR OLD.organization IS NOT NEW.organization OR OLD.id IS NOT NEW.id
			OR OLD.updated IS NOT NEW.updated)
		BEGIN ` + row("NEW.organization", "NEW.id", "NEW.sku", "upsert", "NEW", "OLD if in the export") + ` END`,
		`CREATE TRIGGER ` + t[1] + ` AFTER UPDATE OF active, organization, id ON products
		WHEN OLD.active AND (NOT NEW.active OR OLD.organization IS NOT NEW.organization OR OLD.id IS NOT NEW.id)
		BEGIN ` + row("OLD.organization", "OLD.id", "OLD.sku", "remove", "", "OLD") + ` END`,
		`CREATE TRIGGER ` + t[2] + ` AFTER DELETE ON products WHEN OLD.active
		BEGIN ` + row("OLD.organization", "OLD.id", "OLD.sku", "remove", "", "OLD") + ` END`,
	}
	m.Register(func(app core.App) error {
		clients, err := app.FindCollectionByNameOrId(schema.APIClients)
		if err != nil {
			return err
		}
		clients.Fields.Add(&core.JSONField{Name: "catalog", MaxSize: 1 << 20})
		if err := app.Save(clients); err != nil {
			return fmt.Errorf("api_clients.catalog: %w", err)
		}
		return execAll(app, up)
	}, func(app core.App) error {
		down := []string{"DROP TRIGGER IF EXISTS " + t[0], "DROP TRIGGER IF EXISTS " + t[1], "DROP TRIGGER IF EXISTS " + t[2]}
		for _, column := range []string{"client", "template", "brand", "categories", "oldTemplate", "oldBrand", "oldCategories"} {
			down = append(down, `ALTER TABLE `+schema.ChangesTable+` DROP COLUMN `+column)
		}
		// the product triggers as 1795272900 made them, then the clients' generation trigger without catalog
		down = append(down, changeFeedStatements()[4:7]...)
		down = append(down, "DROP TRIGGER IF EXISTS "+schema.GenerationTriggers[1],
			`CREATE TRIGGER `+schema.GenerationTriggers[1]+` AFTER UPDATE OF `+strings.TrimSuffix(clientColumns, ", catalog")+` ON api_clients
			BEGIN `+bump("OLD.organization")+bump("NEW.organization")+` END`)
		if err := execAll(app, down); err != nil {
			return err
		}
		clients, err := app.FindCollectionByNameOrId(schema.APIClients)
		if err != nil {
			return err
		}
		clients.Fields.RemoveByName("catalog")
		return app.Save(clients)
	})
}
