package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// ProductRow is a product as the export reads it: one row per product, JSON
// columns left raw until the page is assembled. The catalog file's reader
// (catalog/) reads the same columns and a few more.
type ProductRow struct {
	ID                string `db:"id"`
	SKU               string `db:"sku"`
	ExternalID        string `db:"externalId"`
	GTIN              string `db:"gtin"`
	Name              string `db:"name"`
	Slug              string `db:"slug"`
	Description       string `db:"description"`
	AttributeTemplate string `db:"attributeTemplate"`
	Brand             string `db:"brand"`
	Attributes        []byte `db:"attributes"`
	Categories        []byte `db:"categories"`
	Images            []byte `db:"images"`
	Files             []byte `db:"files"`
	VariantMaster     string `db:"variantMaster"`
	VariantAttributes []byte `db:"variantAttributes"`
}

func (r ProductRow) recordID() string { return r.ID }

var productColumns = []string{"id", "sku", "externalId", "gtin", "name", "slug", "description", "attributeTemplate", "brand", "attributes", "categories", "images", "files", "variantMaster", "variantAttributes"}

// ExportQuery selects a page of an organization's active products.
type ExportQuery struct {
	Page     int       // zero-based
	PageSize int       // already clamped by the caller
	Since    time.Time // zero: no filter; else products updated strictly after
	// Text, when set, keeps the products whose SKU or name holds it, in any
	// (ASCII) case. It reads every product of the organization (LIKE with a
	// leading wildcard has no index), like modifiedSince it counts and skips.
	Text string
	// Selection is the asking API client's catalog (the whole one when
	// empty): the export holds only the products it selects.
	Selection enrichment.Selection
}

// ExportPage returns one page of org's active products in numeric id order,
// with the total over all pages. The full export starts each page with a
// seek (see exportPages); with modifiedSince, usually a short list, it counts
// and skips with OFFSET.
func (s *Catalog) ExportPage(org enrichment.Org, q ExportQuery) (enrichment.Page[enrichment.Product], error) {
	var (
		total int
		rows  []ProductRow
		err   error
	)
	if q.Since.IsZero() && q.Text == "" {
		total, rows, err = s.fullExportPage(org, q)
	} else {
		where := dbx.And(dbx.HashExp{"organization": string(org), "active": true}, selectionExp(q.Selection, ""))
		if !q.Since.IsZero() {
			where = dbx.And(where, dbx.NewExp("updated > {:since}", dbx.Params{"since": FormatTime(q.Since)}))
		}
		if q.Text != "" {
			where = dbx.And(where, dbx.NewExp(`(sku LIKE {:text} ESCAPE '\' OR name LIKE {:text} ESCAPE '\')`,
				dbx.Params{"text": "%" + likeEscaper.Replace(q.Text) + "%"}))
		}
		total, rows, err = s.offsetExportPage(org, q, where)
	}
	if err != nil {
		return enrichment.Page[enrichment.Product]{}, err
	}
	items, err := s.assemble(org, rows)
	if err != nil {
		return enrichment.Page[enrichment.Product]{}, err
	}
	return enrichment.NewPage(items, q.Page, q.PageSize, total), nil
}

func (s *Catalog) fullExportPage(org enrichment.Org, q ExportQuery) (int, []ProductRow, error) {
	pages, err := s.exportPagesFor(org, q.PageSize, q.Selection)
	if err != nil || q.Page >= len(pages.starts) { // note: never multiply a huge page number
		return pages.total, nil, err
	}
	var rows []ProductRow
	err = s.db().Select(productColumns...).From("products").
		Where(dbx.HashExp{"organization": string(org), "active": true}).
		AndWhere(dbx.NewExp("CAST(id AS INTEGER) >= {:start}", dbx.Params{"start": pages.starts[q.Page]})).
		AndWhere(selectionExp(q.Selection, "")).
		OrderBy("CAST(id AS INTEGER)").Limit(int64(q.PageSize)).All(&rows)
	if err != nil {
		return 0, nil, fmt.Errorf("export products of organization %s: %w", org, err)
	}
	return pages.total, rows, nil
}

func (s *Catalog) offsetExportPage(org enrichment.Org, q ExportQuery, where dbx.Expression) (int, []ProductRow, error) {
	var total int
	if err := s.db().Select("COUNT(*)").From("products").Where(where).Row(&total); err != nil {
		return 0, nil, fmt.Errorf("count products of organization %s: %w", org, err)
	}
	var rows []ProductRow
	if q.Page < (total+q.PageSize-1)/q.PageSize { // note: a page past the end is empty; never multiply a huge page number
		err := s.db().Select(productColumns...).From("products").Where(where).
			OrderBy("CAST(id AS INTEGER)").
			Limit(int64(q.PageSize)).Offset(int64(q.Page) * int64(q.PageSize)).
			All(&rows)
		if err != nil {
			return 0, nil, fmt.Errorf("export products of organization %s: %w", org, err)
		}
	}
	return total, rows, nil
}

// ProductsBySKU returns org's active products whose SKU is one of skus, in
// numeric id order; unknown SKUs are simply absent.
func (s *Catalog) ProductsBySKU(org enrichment.Org, sel enrichment.Selection, skus []string) ([]enrichment.Product, error) {
	rows, err := activeBySKU[ProductRow](s, org, sel, skus, productColumns)
	if err != nil {
		return nil, err
	}
	return s.assemble(org, rows)
}

// activeBySKU loads the given columns of org's active products that sel
// selects with one of skus, in numeric id order.
func activeBySKU[R identified](a area, org enrichment.Org, sel enrichment.Selection, skus []string, columns []string) ([]R, error) {
	s := a.shared()
	if len(skus) == 0 {
		return nil, nil
	}
	skus = unique(slices.Clone(skus))
	var rows []R
	// note: outside a transaction a long list is read in two halves at
	// once, on two of the pool's connections: a submission's 1000 SKUs
	// are random rows of the catalog, read before its write transaction
	// (about 40 ms of CPU), so a lone writer waits for half of it. Inside a
	// transaction there is one connection, and the list is read whole.
	if half := len(skus) / 2; half >= parallelSKUsAt && !s.app.IsTransactional() {
		var wg sync.WaitGroup
		var first []R
		var firstErr error
		wg.Go(func() { first, firstErr = selectBySKU[R](s, org, sel, skus[:half], columns) })
		second, err := selectBySKU[R](s, org, sel, skus[half:], columns)
		wg.Wait()
		if err := errors.Join(firstErr, err); err != nil {
			return nil, err
		}
		rows = append(first, second...)
	} else {
		var err error
		if rows, err = selectBySKU[R](s, org, sel, skus, columns); err != nil {
			return nil, err
		}
	}
	sortByID(rows)
	return rows, nil
}

// parallelSKUsAt is the least number of SKUs in each half of a list that
// activeBySKU reads in two halves at once: a lookup of 50 stays one query.
const parallelSKUsAt = 200

// selectBySKU is activeBySKU's query for distinct skus, in no order.
func selectBySKU[R identified](s *base, org enrichment.Org, sel enrichment.Selection, skus []string, columns []string) ([]R, error) {
	quoted := make([]string, len(columns))
	for i, c := range columns {
		quoted[i] = "[[" + c + "]]"
	}
	// note: the index is named because with a long IN list and sampled
	// statistics SQLite prefers the export index and scans the organization
	var rows []R
	params := dbx.Params{"org": string(org), "skus": sqlparts.InValues(skus)}
	selected := andSelection(sel, "", params)
	err := s.db().NewQuery(`SELECT ` + strings.Join(quoted, ", ") + `
		FROM {{products}} INDEXED BY ` + schema.IdxProductsSKU + `
		WHERE [[organization]] = {:org} AND [[active]] = 1
		AND ` + sqlparts.InList("sku", "skus") + selected).Bind(params).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("find products of organization %s by sku: %w", org, err)
	}
	return rows, nil
}

// CountActiveProducts counts org's active products: what its export holds.
func (s *Catalog) CountActiveProducts(org enrichment.Org) (int, error) {
	var n int
	err := s.db().Select("COUNT(*)").From("products").
		Where(dbx.HashExp{"organization": string(org), "active": true}).Row(&n)
	if err != nil {
		return 0, fmt.Errorf("count products of organization %s: %w", org, err)
	}
	return n, nil
}
