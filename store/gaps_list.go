package store

import (
	"encoding/json/v2"
	"fmt"
	"slices"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// GapsQuery selects a page of an organization's products with gaps.
type GapsQuery struct {
	// Filters, empty for none: a template's and a brand's id, a category's
	// name, a slot (description, images, attributes.NAME).
	Template, Brand, Category, Slot string
	Page                            int // zero-based
	PageSize                        int // already clamped by the caller
	// Selection is the asking API client's catalog (the whole one when
	// empty).
	Selection enrichment.Selection
}

// gapKey is a product's place in the list's order.
type gapKey struct {
	Rank    string `db:"gapRank"`
	Product int64  `db:"product"`
}

// gapPages is where each page of a filtered list starts, as exportPages
// is for the export: a deep page is a seek on the gaps index.
type gapPages struct {
	total  int
	starts []gapKey
}

type gapPagesKey struct {
	org       enrichment.Org
	q         gapsFilter
	pageSize  int
	selection string // Selection.Key
}

// gapsFilter is a GapsQuery's filters, comparable.
type gapsFilter struct{ template, brand, category, slot string }

// gapPagesCache keeps gapPages while the organization's generation holds:
// every writer of products and options moves it.
var gapPagesCache = cacheKind[gapPagesKey, gapPages]{name: "enrichmentGapPages", limit: 1 << 18,
	weigh: func(p gapPages) int { return 1 + len(p.starts) }}

// filters is the query's filters on the products p of the gaps index, as
// SQL and its parameters.
func (q GapsQuery) filters(org enrichment.Org) (string, dbx.Params) {
	where := "p.[[organization]] = {:org} AND p.[[active]] = 1 AND p.[[gapRank]] != ''"
	params := dbx.Params{"org": string(org)}
	if q.Template != "" {
		where, params["template"] = where+" AND p.[[attributeTemplate]] = {:template}", q.Template
	}
	if q.Brand != "" {
		where, params["brand"] = where+" AND p.[[brand]] = {:brand}", q.Brand
	}
	if q.Category != "" {
		where += " AND EXISTS (SELECT 1 FROM json_each(p.[[categories]]) WHERE [[value]] = {:category})"
		params["category"] = q.Category
	}
	if q.Slot != "" {
		where += " AND EXISTS (SELECT 1 FROM json_each(p.[[gaps]]) WHERE [[value]] = {:slot})"
		params["slot"] = q.Slot
	}
	return where + andSelection(q.Selection, "p.", params), params
}

// gapsFrom is the products on the gaps index, in the list's order.
const gapsFrom = ` FROM {{` + schema.Products + `}} AS p INDEXED BY ` + schema.IdxProductsGaps + ` `

// gapsOrder is the list's order.
const gapsOrder = `p.[[gapRank]], CAST(p.[[id]] AS INTEGER)`

// GapsPage returns one page of org's active products with a gap, most
// important gap first, then by id, with the total over all pages.
func (s *Catalog) GapsPage(org enrichment.Org, q GapsQuery) (enrichment.Page[enrichment.GapItem], error) {
	key := gapPagesKey{org, gapsFilter{q.Template, q.Brand, q.Category, q.Slot}, q.PageSize, q.Selection.Key()}
	pages, err := cachedOf(s, gapPagesCache, org, key, func() (gapPages, error) {
		return s.findGapPages(org, q)
	})
	if err != nil {
		return enrichment.Page[enrichment.GapItem]{}, err
	}
	items := []enrichment.GapItem{}
	if q.Page < len(pages.starts) {
		if items, err = s.gapItems(org, q, pages.starts[q.Page]); err != nil {
			return enrichment.Page[enrichment.GapItem]{}, err
		}
	}
	return enrichment.NewPage(items, q.Page, q.PageSize, pages.total), nil
}

// findGapPages walks the gaps index in order for where q's pages start.
func (s *Catalog) findGapPages(org enrichment.Org, q GapsQuery) (gapPages, error) {
	var p gapPages
	where, params := q.filters(org)
	if err := s.db().NewQuery(`SELECT COUNT(*)` + gapsFrom + `WHERE ` + where).Bind(params).Row(&p.total); err != nil {
		return gapPages{}, fmt.Errorf("count the gaps of organization %s: %w", org, err)
	}
	// note: numbered inside SQLite, so only one row per page crosses into Go
	params["size"] = q.PageSize
	err := s.db().NewQuery(`SELECT [[gapRank]], [[product]] FROM (
			SELECT p.[[gapRank]], CAST(p.[[id]] AS INTEGER) AS [[product]], ROW_NUMBER() OVER (ORDER BY ` + gapsOrder + `) - 1 AS [[n]]` +
		gapsFrom + `WHERE ` + where + `) WHERE [[n]] % {:size} = 0 ORDER BY [[n]]`).Bind(params).All(&p.starts)
	if err != nil {
		return gapPages{}, fmt.Errorf("find the gaps pages of organization %s: %w", org, err)
	}
	return p, nil
}

// gapItems reads a page from its start.
func (s *Catalog) gapItems(org enrichment.Org, q GapsQuery, start gapKey) ([]enrichment.GapItem, error) {
	var rows []struct {
		Product      int64  `db:"product"`
		SKU          string `db:"sku"`
		Name         string `db:"name"`
		Completeness int    `db:"completeness"`
		Gaps         []byte `db:"gaps"`
	}
	where, params := q.filters(org)
	params["rank"], params["id"], params["size"] = start.Rank, start.Product, q.PageSize
	err := s.db().NewQuery(`SELECT CAST(p.[[id]] AS INTEGER) AS [[product]], p.[[sku]], p.[[name]], p.[[completeness]], p.[[gaps]]` +
		gapsFrom + `WHERE ` + where + ` AND (` + gapsOrder + `) >= ({:rank}, {:id})
		ORDER BY ` + gapsOrder + ` LIMIT {:size}`).Bind(params).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read a gaps page of organization %s: %w", org, err)
	}
	items := make([]enrichment.GapItem, len(rows))
	for i, r := range rows {
		items[i] = enrichment.GapItem{ID: r.Product, SKU: r.SKU, Name: r.Name, Completeness: r.Completeness, Gaps: []string{}}
		_ = json.Unmarshal(r.Gaps, &items[i].Gaps)
	}
	return items, nil
}

// NamedID finds the id of org's row of a collection (attribute_templates,
// brands) by id or name as stored; ok is false when there is none.
func (s *Catalog) NamedID(org enrichment.Org, collection, ref string) (id string, ok bool, err error) {
	var ids []string
	err = s.db().Select("id").From(collection).
		Where(dbx.HashExp{"organization": string(org)}).
		AndWhere(dbx.Or(dbx.HashExp{"id": ref}, dbx.HashExp{"name": ref})).Column(&ids)
	if err != nil {
		return "", false, fmt.Errorf("find %q among the %s of organization %s: %w", ref, collection, org, err)
	}
	if len(ids) == 0 {
		return "", false, nil
	}
	// note: an id wins over a name that reads like another row's id
	if slices.Contains(ids, ref) {
		return ref, true, nil
	}
	return ids[0], true, nil
}
