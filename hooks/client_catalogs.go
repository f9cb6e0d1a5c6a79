package hooks

import (
	"encoding/json/v2"
	"slices"

	"github.com/catalog-enrichment/enrichment/apierror"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// registerClientCatalogs checks an API client's catalog selection whenever
// it is saved (the dashboard, the records API, apikey create and select)
// and stores it resolved (templates and brands by id, each list sorted);
// a selection naming something the organization does not have is refused.
// A change of the selection writes the products it brings in and takes
// out to that client's change feed, in the same transaction.
func registerClientCatalogs(app core.App) {
	app.OnRecordCreate(schema.APIClients).Bind(&hook.Handler[*core.RecordEvent]{
		Id: "enrichmentClientCatalog",
		Func: func(e *core.RecordEvent) error {
			if _, err := resolveCatalog(e.App, e.Record, enrichment.Selection{}); err != nil {
				return err
			}
			return e.Next()
		},
	})
	app.OnRecordUpdate(schema.APIClients).Bind(&hook.Handler[*core.RecordEvent]{
		Id: "enrichmentClientCatalogChange",
		Func: func(e *core.RecordEvent) error {
			return inTransaction(e, func(txApp core.App) error {
				old := catalogOf(e.Record.Original())
				selected, err := resolveCatalog(txApp, e.Record, old)
				if err != nil {
					return err
				}
				if err := e.Next(); err != nil {
					return err
				}
				if old.Key() == selected.Key() {
					return nil
				}
				id, err := recordID(e.Record)
				if err != nil {
					return err
				}
				return store.New(txApp).Catalog().RecordSelectionChange(enrichment.Org(e.Record.GetString("organization")), id, old, selected)
			})
		},
	})
}

// resolveCatalog checks the record's catalog against its organization and
// sets it as stored. What the stored selection kept already passes as it
// is: a template deleted since must not stop the client's other changes
// (a key's rotation, its revocation).
func resolveCatalog(app core.App, r *core.Record, stored enrichment.Selection) (enrichment.Selection, error) {
	var sel enrichment.Selection
	if raw := r.GetString("catalog"); raw != "" && raw != "null" {
		if err := json.Unmarshal([]byte(raw), &sel, json.RejectUnknownMembers(true)); err != nil {
			msg := "The catalog must be an object of templates, brands and categories, each a list of names or ids."
			return sel, apierror.Or(enrichment.Invalid("catalog", "validation_invalid_catalog", msg, msg))
		}
	}
	fresh := enrichment.Selection{Templates: without(sel.Templates, stored.Templates),
		Brands: without(sel.Brands, stored.Brands), Categories: without(sel.Categories, stored.Categories)}
	resolved, err := store.New(app).Catalog().ResolveSelection(enrichment.Org(r.GetString("organization")), fresh)
	if err != nil {
		return sel, apierror.Or(err)
	}
	resolved = enrichment.Selection{Templates: append(resolved.Templates, kept(sel.Templates, stored.Templates)...),
		Brands:     append(resolved.Brands, kept(sel.Brands, stored.Brands)...),
		Categories: append(resolved.Categories, kept(sel.Categories, stored.Categories)...)}.Normalized()
	r.Set("catalog", resolved)
	return resolved, nil
}

// without is list without the values of stored; kept is the others.
func without(list, stored []string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(v string) bool { return slices.Contains(stored, v) })
}

func kept(list, stored []string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(v string) bool { return !slices.Contains(stored, v) })
}

// catalogOf is a stored record's catalog (the whole one for none).
func catalogOf(r *core.Record) enrichment.Selection {
	var sel enrichment.Selection
	if raw := r.GetString("catalog"); raw != "" && raw != "null" {
		_ = json.Unmarshal([]byte(raw), &sel)
	}
	return sel.Normalized()
}
