package store

import (
	"fmt"
	"maps"
	"slices"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// selectionSQL is SQL keeping the products that sel holds, their columns
// read under prefix ("p." or ""), with its parameters; "" for the whole
// catalog. Every query that reads products for an API client's key adds it
// (the export, the lookup, the gaps, the submissions' matching, the change
// feed's entries of a selection's change).
func selectionSQL(sel enrichment.Selection, prefix string) (string, dbx.Params) {
	return selectionSQLNamed(sel, prefix, "sel")
}

// selectionSQLNamed is selectionSQL with its parameters named from name,
// so two selections can be in one query.
func selectionSQLNamed(sel enrichment.Selection, prefix, name string) (string, dbx.Params) {
	if sel.Whole() {
		return "", nil
	}
	var where string
	params := dbx.Params{}
	and := func(cond string) {
		if where != "" {
			where += " AND "
		}
		where += cond
	}
	if len(sel.Templates) > 0 {
		and(prefix + sqlparts.InList("attributeTemplate", name+"Templates"))
		params[name+"Templates"] = sqlparts.InValues(sel.Templates)
	}
	if len(sel.Brands) > 0 {
		and(prefix + sqlparts.InList("brand", name+"Brands"))
		params[name+"Brands"] = sqlparts.InValues(sel.Brands)
	}
	if len(sel.Categories) > 0 {
		and("EXISTS (SELECT 1 FROM json_each(" + prefix + "[[categories]]) AS c WHERE c.[[value]] IN (SELECT [[value]] FROM json_each({:" + name + "Categories})))")
		params[name+"Categories"] = sqlparts.InValues(sel.Categories)
	}
	return "(" + where + ")", params
}

// andSelection is " AND " and selectionSQL for raw SQL, its parameters
// added to params; "" for the whole catalog.
func andSelection(sel enrichment.Selection, prefix string, params dbx.Params) string {
	where, selParams := selectionSQL(sel, prefix)
	if where == "" {
		return ""
	}
	maps.Copy(params, selParams)
	return " AND " + where
}

// selectionExp is selectionSQL as an expression (nil for the whole
// catalog), for dbx's query builder.
func selectionExp(sel enrichment.Selection, prefix string) dbx.Expression {
	where, params := selectionSQL(sel, prefix)
	if where == "" {
		return nil
	}
	return dbx.NewExp(where, params)
}

// ResolveSelection checks a catalog selection against org's catalog and
// returns it as stored: templates and brands by id (each given by id or
// name), categories as given, each list sorted. What the selection stored
// before keeps passes as it is: a template deleted since must not stop the
// client's other changes (a key's rotation, its revocation). A template, brand or
// category org does not have is an invalid enrichment.Error naming it.
func (s *Catalog) ResolveSelection(org enrichment.Org, sel, stored enrichment.Selection) (enrichment.Selection, error) {
	out := enrichment.Selection{}
	for _, list := range []struct {
		refs, stored []string
		to           *[]string
		collection   string
		what         string
	}{{sel.Templates, stored.Templates, &out.Templates, schema.AttributeTemplates, "template"},
		{sel.Brands, stored.Brands, &out.Brands, schema.Brands, "brand"}} {
		for _, ref := range list.refs {
			if slices.Contains(list.stored, ref) {
				*list.to = append(*list.to, ref)
				continue
			}
			id, ok, err := s.NamedID(org, list.collection, ref)
			if err != nil {
				return enrichment.Selection{}, err
			}
			if !ok {
				msg := fmt.Sprintf("The catalog names the %s %q, which this organization does not have (by id or name).", list.what, ref)
				return enrichment.Selection{}, enrichment.Invalid("catalog", "validation_unknown_"+list.what, msg, msg)
			}
			*list.to = append(*list.to, id)
		}
	}
	for _, name := range sel.Categories {
		if slices.Contains(stored.Categories, name) {
			out.Categories = append(out.Categories, name)
			continue
		}
		var found []int
		err := s.db().NewQuery(`SELECT 1 FROM {{` + schema.Products + `}} AS p, json_each(p.[[categories]]) AS c
			WHERE p.[[organization]] = {:org} AND c.[[value]] = {:name} LIMIT 1`).
			Bind(dbx.Params{"org": string(org), "name": name}).Column(&found)
		if err != nil {
			return enrichment.Selection{}, fmt.Errorf("find category %q of organization %s: %w", name, org, err)
		}
		if len(found) == 0 {
			msg := fmt.Sprintf("The catalog names the category %q, which no product of this organization is in.", name)
			return enrichment.Selection{}, enrichment.Invalid("catalog", "validation_unknown_category", msg, msg)
		}
		out.Categories = append(out.Categories, name)
	}
	return out.Normalized(), nil
}

// RecordSelectionChange writes to the change feed, for client alone, an
// upsert of each of org's active products that its catalog's change from
// old to selected brings in, and a removal of each it takes out, in the
// caller's transaction. note: one statement over the organization's
// products, so a change at 1M products writes up to 1M rows
func (s *Catalog) RecordSelectionChange(org enrichment.Org, client int64, old, selected enrichment.Selection) error {
	holds := func(sel enrichment.Selection, name string) (string, dbx.Params) {
		where, params := selectionSQLNamed(sel, "", name)
		if where == "" {
			return "1", dbx.Params{}
		}
		return where, params
	}
	before, params := holds(old, "old")
	after, afterParams := holds(selected, "new")
	maps.Copy(params, afterParams)
	params["org"], params["client"] = string(org), FormatID(client)
	_, err := s.db().NewQuery(`INSERT INTO {{` + schema.ChangesTable + `}} ([[organization]], [[product]], [[sku]], [[change]], [[at]], [[client]])
		SELECT [[organization]], [[id]], [[sku]], CASE WHEN ` + after + ` THEN 'upsert' ELSE 'remove' END,
		strftime('%Y-%m-%d %H:%M:%fZ', 'now'), {:client}
		FROM {{` + schema.Products + `}} INDEXED BY ` + schema.IdxProductsExport + `
		WHERE [[organization]] = {:org} AND [[active]] = 1 AND (` + after + `) IS NOT (` + before + `)
		ORDER BY CAST([[id]] AS INTEGER)`).Bind(params).Execute()
	if err != nil {
		return fmt.Errorf("record the catalog change of api client %d: %w", client, err)
	}
	return nil
}
