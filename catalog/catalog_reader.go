package catalog

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

// The catalog export (`export`): an organization's whole catalog, read in
// one read transaction (a consistent snapshot that blocks no writer) page
// by page, so that its memory does not grow with the catalog.

// exportPageSize products are read at a time.
const exportPageSize = 500

// CatalogProduct is a product as the catalog export writes it: JSON fields
// as stored, VariantAttributes nil for SQL NULL, MasterSKU the SKU of its
// variant master ("" for none).
type CatalogProduct struct {
	ID                                             int64
	SKU, ExternalID, GTIN, Name, Slug, Description string
	Active                                         bool
	Template, Brand, Master                        int64 // Master: its variant master's id, 0 for none
	MasterSKU                                      string
	Attributes, Categories, Images, Files          []byte
	VariantAttributes                              []byte
	Shopify                                        []byte // what a Shopify CSV import remembered (JSON), nil for none
}

// CatalogTemplate is an attribute template with its options.
type CatalogTemplate struct {
	ID      int64
	Name    string
	Active  bool
	Options []ImportOptionRow
}

// CatalogReader reads one organization's catalog inside one read
// transaction; see tables.ReadCatalog.
type CatalogReader struct {
	db  dbx.Builder
	org enrichment.Org
}

// ReadCatalog calls fn with a reader of org's catalog, all of whose reads
// see one snapshot of the database.
func (s *tables) ReadCatalog(org enrichment.Org, fn func(r *CatalogReader) error) error {
	db, ok := s.app.ConcurrentDB().(*dbx.DB)
	if !ok { // note: already inside a transaction: its snapshot it is
		return fn(&CatalogReader{db: s.db(), org: org})
	}
	tx, err := db.Begin()
	if err != nil {
		return fmt.Errorf("begin reading the catalog of organization %s: %w", org, err)
	}
	defer tx.Rollback() //nolint:errcheck // note: a read transaction has nothing to keep
	// note: without the memory map, as the import (WithoutMemoryMap): every
	// page read through it would stay in the process's RSS
	return withPragmaOn(tx, "mmap_size", 0, func() error {
		return fn(&CatalogReader{db: tx, org: org})
	})
}

// Templates returns the organization's templates with their options, by
// name.
func (r *CatalogReader) Templates() ([]CatalogTemplate, error) {
	rows, err := templateOptionRows(r.db, r.org)
	if err != nil {
		return nil, err
	}
	var out []CatalogTemplate
	for _, o := range rows {
		if len(out) == 0 || out[len(out)-1].Name != o.Name {
			out = append(out, CatalogTemplate{ID: sqlparts.StoredID(o.Template), Name: o.Name, Active: o.Active})
		}
		if o.Attr.Valid {
			t := &out[len(out)-1]
			t.Options = append(t.Options, o.option())
		}
	}
	return out, nil
}

// CatalogBrand is a brand as stored.
type CatalogBrand struct {
	Name, Website, Slug string
}

// Brands returns the organization's brands by id.
func (r *CatalogReader) Brands() (map[int64]CatalogBrand, error) {
	var rows []struct {
		ID      string `db:"id"`
		Name    string `db:"name"`
		Website string `db:"website"`
		Slug    string `db:"slug"`
	}
	err := r.db.Select("id", "name", "website", "slug").From("brands").Where(dbx.HashExp{"organization": string(r.org)}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read brands of organization %s: %w", r.org, err)
	}
	out := make(map[int64]CatalogBrand, len(rows))
	for _, b := range rows {
		out[sqlparts.StoredID(b.ID)] = CatalogBrand{Name: b.Name, Website: b.Website, Slug: b.Slug}
	}
	return out, nil
}

// catalogProductRow is a row of the export's product queries: the API
// export's row, with what the catalog file adds.
type catalogProductRow struct {
	store.ProductRow
	Active    bool   `db:"active"`
	MasterSKU string `db:"masterSku"`
	Shopify   []byte `db:"shopify"`
}

const catalogProductSelect = `SELECT p.[[id]], p.[[sku]], p.[[externalId]], p.[[gtin]], p.[[name]], p.[[slug]], p.[[description]],
	p.[[active]], p.[[attributeTemplate]], p.[[brand]], p.[[variantMaster]], COALESCE(m.[[sku]], '') AS [[masterSku]], p.[[attributes]], p.[[categories]],
	p.[[images]], p.[[files]], p.[[variantAttributes]], p.[[shopify]]
	FROM {{products}} p LEFT JOIN {{products}} m ON m.[[id]] = p.[[variantMaster]] AND p.[[variantMaster]] != '' `

func (row catalogProductRow) product() CatalogProduct {
	return CatalogProduct{
		ID: sqlparts.StoredID(row.ID), SKU: row.SKU, ExternalID: row.ExternalID, GTIN: row.GTIN, Name: row.Name, Slug: row.Slug,
		Description: row.Description, Active: row.Active, Template: sqlparts.StoredID(row.AttributeTemplate), Brand: sqlparts.StoredID(row.Brand),
		Master: sqlparts.StoredID(row.VariantMaster), MasterSKU: row.MasterSKU, Attributes: row.Attributes, Categories: row.Categories, Images: row.Images, Files: row.Files,
		VariantAttributes: row.VariantAttributes, Shopify: row.Shopify,
	}
}

// Products calls fn with the organization's products, a page at a time:
// the active ones, then the others, each in numeric id order. With
// headsOnly, only the products that are not variants.
func (r *CatalogReader) Products(headsOnly bool, fn func(page []CatalogProduct) error) error {
	heads := ""
	if headsOnly {
		heads = " AND p.[[variantMaster]] = ''"
	}
	q := r.db.NewQuery(catalogProductSelect + `WHERE p.[[organization]] = {:org} AND p.[[active]] = {:active}
		AND CAST(p.[[id]] AS INTEGER) > {:after}` + heads + ` ORDER BY CAST(p.[[id]] AS INTEGER) LIMIT ` + fmt.Sprint(exportPageSize))
	page := make([]CatalogProduct, 0, exportPageSize)
	for _, active := range []bool{true, false} {
		var after int64
		for {
			var rows []catalogProductRow
			if err := q.Bind(dbx.Params{"org": string(r.org), "active": active, "after": after}).All(&rows); err != nil {
				return fmt.Errorf("read products of organization %s: %w", r.org, err)
			}
			if len(rows) == 0 {
				break
			}
			page = page[:0]
			for _, row := range rows {
				page = append(page, row.product())
			}
			after = page[len(page)-1].ID
			if err := fn(page); err != nil {
				return err
			}
		}
	}
	return nil
}

// Variants returns the variants of masters (ids), in numeric id order.
func (r *CatalogReader) Variants(masters []int64) ([]CatalogProduct, error) {
	if len(masters) == 0 {
		return nil, nil
	}
	var rows []catalogProductRow
	err := r.db.NewQuery(catalogProductSelect + `WHERE p.[[organization]] = {:org} AND p.[[variantMaster]] != ''
		AND p.` + sqlparts.InList("variantMaster", "masters") + ` ORDER BY CAST(p.[[id]] AS INTEGER)`).
		Bind(dbx.Params{"org": string(r.org), "masters": sqlparts.InValues(sqlparts.FormatIDs(masters))}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read variants of organization %s: %w", r.org, err)
	}
	out := make([]CatalogProduct, len(rows))
	for i, row := range rows {
		out[i] = row.product()
	}
	return out, nil
}

// EachAttributeList calls fn with each product's attributes (JSON as
// stored), and the variant attributes and the Shopify memory of its family
// (its master's, or its own), streaming: the Shopify export learns its
// metafield columns so.
func (r *CatalogReader) EachAttributeList(fn func(attributes, familyVariantAttributes, familyShopify []byte) error) error {
	rows, err := r.db.NewQuery(`SELECT p.[[attributes]], COALESCE(m.[[variantAttributes]], p.[[variantAttributes]]) AS [[va]],
		CASE WHEN m.[[id]] IS NULL THEN p.[[shopify]] ELSE m.[[shopify]] END AS [[shopify]]
		FROM {{products}} p LEFT JOIN {{products}} m ON m.[[id]] = p.[[variantMaster]] AND p.[[variantMaster]] != ''
		WHERE p.[[organization]] = {:org} AND p.[[attributes]] NOT IN ('', '[]')`).Bind(dbx.Params{"org": string(r.org)}).Rows()
	if err != nil {
		return fmt.Errorf("read attributes of organization %s: %w", r.org, err)
	}
	defer rows.Close()
	var attrs, va, shopify []byte
	for rows.Next() {
		if err := rows.Scan(&attrs, &va, &shopify); err != nil {
			return fmt.Errorf("read attributes of organization %s: %w", r.org, err)
		}
		if err := fn(attrs, va, shopify); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read attributes of organization %s: %w", r.org, err)
	}
	return nil
}
