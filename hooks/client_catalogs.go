package hooks

import (
	"encoding/json/v2"

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
				old := enrichment.SelectionOf([]byte(e.Record.Original().GetString("catalog")))
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

// resolveCatalog checks the record's catalog against its organization
// (what stored already held passes) and sets it as stored.
func resolveCatalog(app core.App, r *core.Record, stored enrichment.Selection) (enrichment.Selection, error) {
	var sel enrichment.Selection
	if raw := r.GetString("catalog"); raw != "" && raw != "null" {
		var given struct {
			Templates  []enrichment.IDText `json:"templates"` // a name, or an id
			Brands     []enrichment.IDText `json:"brands"`
			Categories []enrichment.IDText `json:"categories"`
		}
		if err := json.Unmarshal([]byte(raw), &given, json.RejectUnknownMembers(true)); err != nil {
			msg := "The catalog must be an object of templates, brands and categories, each a list of names or ids."
			return sel, apierror.Or(enrichment.Invalid("catalog", "validation_invalid_catalog", msg, msg))
		}
		sel = enrichment.Selection{Templates: asStrings(given.Templates), Brands: asStrings(given.Brands),
			Categories: asStrings(given.Categories)}
	}
	resolved, err := store.New(app).Catalog().ResolveSelection(enrichment.Org(r.GetString("organization")), sel, stored)
	if err != nil {
		return sel, apierror.Or(err)
	}
	r.Set("catalog", resolved)
	return resolved, nil
}

// asStrings is the entries as the selection stores them.
func asStrings(entries []enrichment.IDText) []string {
	if entries == nil {
		return nil
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = string(e)
	}
	return out
}
