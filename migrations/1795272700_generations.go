package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Per-organization generations: one counter per organization, raised by
// triggers whenever its API keys, its attribute templates and options, its
// brands or the set of products in its export change, in any process (the
// service's code raises it too, for the writes no trigger here sees: product
// inserts and other product changes). Every cached answer of an
// organization (key lookups, the templates answer, options and brands,
// where export pages start) is kept with the generation it was computed at
// and served only while the generation is the same. It replaces the
// product-changes counter of 1795272600_product_changes.go. The WAL-index
// reading of the first release stays, as a gate in front of the generation
// read (package dbversion): while nothing at all was committed, a
// generation read before still holds.
func init() {
	bump := func(org string) string {
		return `INSERT INTO ` + schema.GenerationsTable + ` (organization, generation) VALUES (` + org + `, 1)
			ON CONFLICT (organization) DO UPDATE SET generation = generation + 1;`
	}
	trigger := func(name, event, table, when, body string) string {
		if when != "" {
			when = " WHEN " + when
		}
		return `CREATE TRIGGER ` + name + ` AFTER ` + event + ` ON ` + table + when + ` BEGIN ` + body + ` END`
	}
	t := schema.GenerationTriggers
	// note: not lastUsedAt, which the key middleware touches while serving
	clientColumns := "organization, name, keyHash, keyPrefix, scopes, active, rateLimit, previousKeyHash, previousKeyExpiresAt"
	statements := []string{
		`CREATE TABLE ` + schema.GenerationsTable + ` (
			organization TEXT PRIMARY KEY NOT NULL,
			generation   INTEGER NOT NULL
		) WITHOUT ROWID`,
		trigger(t[0], "INSERT", "api_clients", "", bump("NEW.organization")),
		trigger(t[1], "UPDATE OF "+clientColumns, "api_clients", "", bump("OLD.organization")+bump("NEW.organization")),
		trigger(t[2], "DELETE", "api_clients", "", bump("OLD.organization")),
		trigger(t[3], "INSERT", "attribute_templates", "", bump("NEW.organization")),
		trigger(t[4], "UPDATE", "attribute_templates", "", bump("OLD.organization")+bump("NEW.organization")),
		trigger(t[5], "DELETE", "attribute_templates", "", bump("OLD.organization")),
		trigger(t[6], "INSERT", "attribute_options", "", bump("NEW.organization")),
		trigger(t[7], "UPDATE", "attribute_options", "", bump("OLD.organization")+bump("NEW.organization")),
		trigger(t[8], "DELETE", "attribute_options", "", bump("OLD.organization")),
		// note: no INSERT trigger on products: one trigger of any kind made the
		// import's inserts markedly slower; the import bumps once, and the
		// products hook bumps for records created through PocketBase
		trigger(t[9], "UPDATE OF organization, active, id", "products",
			"OLD.organization IS NOT NEW.organization OR OLD.active IS NOT NEW.active OR OLD.id IS NOT NEW.id",
			bump("OLD.organization")+bump("NEW.organization")),
		trigger(t[10], "DELETE", "products", "", bump("OLD.organization")),
		trigger(t[11], "INSERT", "brands", "", bump("NEW.organization")),
		trigger(t[12], "UPDATE", "brands", "", bump("OLD.organization")+bump("NEW.organization")),
		trigger(t[13], "DELETE", "brands", "", bump("OLD.organization")),
	}
	m.Register(func(app core.App) error {
		if err := dropProductChanges(app); err != nil {
			return err
		}
		return execAll(app, statements)
	}, func(app core.App) error {
		drops := []string{"DROP TABLE IF EXISTS " + schema.GenerationsTable}
		for _, name := range t {
			drops = append(drops, "DROP TRIGGER IF EXISTS "+name)
		}
		if err := execAll(app, drops); err != nil {
			return err
		}
		return createProductChanges(app)
	})
}
