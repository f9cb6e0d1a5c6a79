package catalog

import (
	"database/sql"
	"encoding/json/jsontext"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

// The catalog import's product writes (see import_queries.go): rows are
// written whole, and a row the file leaves as it is is not written at all.
// Every write sets importHash, the digest of what the import wrote; any
// other change of those columns clears it (a trigger, see the migration
// 1795273100_import_provenance.go).

// ImportProductRow is one product row as the import writes it, or as it is
// stored. Template, Brand and VariantMaster are record ids, 0 for none; the
// JSON fields are JSON text, VariantAttributes nil for SQL NULL.
type ImportProductRow struct {
	ID                                      int64
	Stored                                  bool // updates a stored product; else a new one
	SKU, ExternalID, GTIN, Name, Slug, Desc string
	Active                                  bool
	Template, Brand, VariantMaster          int64
	Attributes, Categories, Images, Files   string
	VariantAttributes                       *string
	// Shopify is what the Shopify CSV export writes back as imported (JSON,
	// products.shopify); nil keeps what is stored (a JSON file says nothing
	// of it).
	Shopify *string
	Hash    string     // importHash
	Gaps    store.Gaps // completeness, gaps and gapRank
}

// ImportProductWriter writes product rows of one organization through
// prepared single-row statements; Close it when done. note: single rows
// measured fastest: a multi-row INSERT makes SQLite copy every page it
// touches into a statement journal, and the driver binds parameters in time
// quadratic in their number. An upsert would too, since products has UPDATE
// triggers (1.5x the import time).
type ImportProductWriter struct {
	s                       *tables
	org                     enrichment.Org
	now                     string
	insert, update, setHash *dbx.Query
	params                  dbx.Params
	newIDs                  []int64 // the new active products of a Write
	news                    []byte  // and as JSON, [[id, sku], ...]
	newsValid               bool    // every SKU in news is valid UTF-8
}

// NewImportProductWriter returns a writer of org's products stamped now.
func (s *tables) NewImportProductWriter(org enrichment.Org, now string) *ImportProductWriter {
	return &ImportProductWriter{s: s, org: org, now: now, params: dbx.Params{}}
}

func (w *ImportProductWriter) prepare() {
	if w.insert == nil {
		w.insert = w.s.db().NewQuery(productInsertSQL).Prepare()
		w.update = w.s.db().NewQuery(productUpdateSQL).Prepare()
		w.setHash = w.s.db().NewQuery(`UPDATE {{products}} SET [[importHash]] = {:importHash}
			WHERE [[id]] = {:id} AND [[organization]] = {:organization}`).Prepare()
	}
}

// Write stores rows: a Stored row updates its product (all fields but
// created; an empty externalId keeps the stored one), any other is
// inserted, and the active ones among those are recorded in the change
// feed (no trigger sees inserts; updates are the triggers').
func (w *ImportProductWriter) Write(rows []ImportProductRow) error {
	w.prepare()
	p := w.params
	w.news, w.newIDs, w.newsValid = w.news[:0], w.newIDs[:0], true
	for _, r := range rows {
		p["id"], p["organization"], p["sku"], p["externalId"] = store.FormatID(r.ID), string(w.org), r.SKU, r.ExternalID
		p["gtin"], p["name"], p["slug"], p["description"], p["active"] = r.GTIN, r.Name, r.Slug, r.Desc, r.Active
		p["attributeTemplate"], p["brand"] = optionalID(r.Template), optionalID(r.Brand)
		p["variantMaster"], p["attributes"], p["categories"] = optionalID(r.VariantMaster), r.Attributes, r.Categories
		p["images"], p["files"], p["created"], p["updated"] = r.Images, r.Files, w.now, w.now
		p["variantAttributes"], p["importHash"], p["shopify"] = nil, r.Hash, nil
		p["completeness"], p["gaps"], p["gapRank"] = r.Gaps.Completeness, r.Gaps.Gaps, r.Gaps.Rank
		if r.VariantAttributes != nil {
			p["variantAttributes"] = *r.VariantAttributes
		}
		if r.Shopify != nil {
			p["shopify"] = *r.Shopify
		}
		stmt := w.insert
		if r.Stored {
			stmt = w.update
		} else if r.Active {
			w.news, w.newIDs = appendChange(w.news, r.ID, r.SKU), append(w.newIDs, r.ID)
			w.newsValid = w.newsValid && utf8.ValidString(r.SKU)
		}
		if err := w.exec(stmt, r.ID, r.SKU); err != nil {
			return err
		}
	}
	return w.recordNew()
}

// appendChange appends "id<TAB>sku" to buf, a JSON array of strings
// being built (an id has no tab, so the first one ends it).
func appendChange(buf []byte, id int64, sku string) []byte {
	if len(buf) == 0 {
		buf = append(buf, '[')
	} else {
		buf = append(buf, ',')
	}
	buf, _ = jsontext.AppendQuote(buf, strconv.FormatInt(id, 10)+"\t"+sku)
	return buf
}

// recordNew writes an upsert to the change feed for each of w.newIDs, in
// the order written (id order), in one statement. note: from the values
// written (w.news), not by reading the rows back by id (RecordUpserts),
// which cost more; but for a SKU that is not valid UTF-8, which JSON would
// not carry as it is
func (w *ImportProductWriter) recordNew() error {
	if len(w.newIDs) == 0 {
		return nil
	}
	if !w.newsValid {
		return store.New(w.s.app).Catalog().RecordUpserts(w.org, w.newIDs)
	}
	w.news = append(w.news, ']')
	_, err := w.s.db().NewQuery(`INSERT INTO {{` + schema.ChangesTable + `}} ([[organization]], [[product]], [[sku]], [[change]], [[at]])
		SELECT {:org}, substr([[value]], 1, instr([[value]], char(9)) - 1), substr([[value]], instr([[value]], char(9)) + 1),
		'upsert', strftime('%Y-%m-%d %H:%M:%fZ', 'now') FROM json_each({:news})`).
		Bind(dbx.Params{"org": string(w.org), "news": string(w.news)}).Execute()
	if err != nil {
		return fmt.Errorf("record new products of organization %s in the change feed: %w", w.org, err)
	}
	return nil
}

// SetHash records the digest of a stored product that the import found
// equal to the file: nothing else of the row changes, its update time
// included, and no trigger fires.
func (w *ImportProductWriter) SetHash(id int64, sku, hash string) error {
	w.prepare()
	return w.exec(w.setHash.Bind(dbx.Params{"id": store.FormatID(id), "organization": string(w.org), "importHash": hash}), id, sku)
}

// exec runs a statement bound to w.params (or already bound) that must
// write exactly product id of the organization.
func (w *ImportProductWriter) exec(stmt *dbx.Query, id int64, sku string) error {
	if stmt != w.setHash {
		stmt = stmt.Bind(w.params)
	}
	res, err := stmt.Execute()
	if err != nil {
		return fmt.Errorf("write product %q of organization %s: %w", sku, w.org, err)
	}
	if n, err := res.RowsAffected(); err == nil && n != 1 {
		return fmt.Errorf("write product %q of organization %s: product %d is not the organization's", sku, w.org, id)
	}
	return nil
}

// Close releases the prepared statements.
func (w *ImportProductWriter) Close() error {
	if w.insert == nil {
		return nil
	}
	return errors.Join(w.insert.Close(), w.update.Close(), w.setHash.Close())
}

// productColumnsWritten are the columns an import writes.
var productColumnsWritten = []string{"id", "organization", "sku", "externalId", "gtin", "name", "slug", "description",
	"active", "attributeTemplate", "brand", "variantMaster", "attributes", "categories", "images",
	"files", "variantAttributes", "shopify", "importHash", "created", "updated", "completeness", "gaps", "gapRank"}

// productInsertSQL inserts a new product row.
var productInsertSQL = func() string {
	var cols, values []string
	for _, c := range productColumnsWritten {
		cols, values = append(cols, "[["+c+"]]"), append(values, "{:"+c+"}")
	}
	return "INSERT INTO {{products}} (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(values, ", ") + ")"
}()

// productUpdateSQL overwrites a stored product row of the organization.
var productUpdateSQL = func() string {
	var set []string
	for _, c := range productColumnsWritten {
		switch c {
		case "id", "organization", "created":
		case "externalId":
			set = append(set, "[[externalId]] = COALESCE(NULLIF({:externalId}, ''), [[externalId]])")
		case "shopify":
			set = append(set, "[[shopify]] = COALESCE({:shopify}, [[shopify]])")
		default:
			set = append(set, "[["+c+"]] = {:"+c+"}")
		}
	}
	// note: the organization never fails to match by construction (ids come
	// from org's own rows), but a row of another organization is never overwritten
	return "UPDATE {{products}} SET " + strings.Join(set, ", ") +
		" WHERE [[id]] = {:id} AND [[organization]] = {:organization}"
}()

// storedProductRow is a product row as ImportStoredRows reads it.
type storedProductRow struct {
	ID                string         `db:"id"`
	SKU               string         `db:"sku"`
	ExternalID        string         `db:"externalId"`
	GTIN              string         `db:"gtin"`
	Name              string         `db:"name"`
	Slug              string         `db:"slug"`
	Description       string         `db:"description"`
	Active            bool           `db:"active"`
	AttributeTemplate string         `db:"attributeTemplate"`
	Brand             string         `db:"brand"`
	VariantMaster     string         `db:"variantMaster"`
	Attributes        string         `db:"attributes"`
	Categories        string         `db:"categories"`
	Images            string         `db:"images"`
	Files             string         `db:"files"`
	VariantAttributes sql.NullString `db:"variantAttributes"`
	Shopify           sql.NullString `db:"shopify"`
	ImportHash        string         `db:"importHash"`
}

// ImportStoredRows reads org's products ids as stored, by id. JSON fields
// are the stored text, as they are.
func (s *tables) ImportStoredRows(org enrichment.Org, ids []int64) (map[int64]ImportProductRow, error) {
	out := make(map[int64]ImportProductRow, len(ids))
	for start := 0; start < len(ids); start += 500 {
		var rows []storedProductRow
		// note: a product saved through the records API without a JSON
		// field holds NULL there, read as none
		err := s.db().Select("id", "sku", "externalId", "gtin", "name", "slug", "description", "active",
			"attributeTemplate", "brand", "variantMaster", "COALESCE([[attributes]], '') AS [[attributes]]",
			"COALESCE([[categories]], '') AS [[categories]]", "COALESCE([[images]], '') AS [[images]]",
			"COALESCE([[files]], '') AS [[files]]", "variantAttributes", "shopify", "importHash").From("products").
			Where(sqlparts.ByIDsOf(org)).AndWhere(sqlparts.In("id", sqlparts.FormatIDs(ids[start:min(start+500, len(ids))]))).All(&rows)
		if err != nil {
			return nil, fmt.Errorf("read products of organization %s: %w", org, err)
		}
		for _, r := range rows {
			row := ImportProductRow{
				ID: sqlparts.StoredID(r.ID), Stored: true, SKU: r.SKU, ExternalID: r.ExternalID, GTIN: r.GTIN, Name: r.Name,
				Slug: r.Slug, Desc: r.Description, Active: r.Active, Template: sqlparts.StoredID(r.AttributeTemplate),
				Brand: sqlparts.StoredID(r.Brand), VariantMaster: sqlparts.StoredID(r.VariantMaster), Attributes: r.Attributes,
				Categories: r.Categories, Images: r.Images, Files: r.Files, Hash: r.ImportHash,
			}
			if r.VariantAttributes.Valid {
				row.VariantAttributes = &r.VariantAttributes.String
			}
			if r.Shopify.Valid && r.Shopify.String != "" && r.Shopify.String != "null" {
				row.Shopify = &r.Shopify.String
			}
			out[row.ID] = row
		}
	}
	return out, nil
}

// ImportVariantLink sets product ID's variant master to Master, with the
// digest of the row so linked.
type ImportVariantLink struct {
	ID, Master int64
	Hash       string
}

// SetImportVariantMasters points org's products at their variant masters.
func (s *tables) SetImportVariantMasters(org enrichment.Org, links []ImportVariantLink, now string) error {
	return s.updateEach(org, "[[variantMaster]] = {:master}, [[importHash]] = {:hash}, [[updated]] = {:now}", len(links),
		func(i int) (int64, dbx.Params) {
			return links[i].ID, dbx.Params{"master": optionalID(links[i].Master), "hash": links[i].Hash, "now": now}
		})
}

// ImportRelink gives product ID its template and attributes anew, with the
// digest of the row so changed.
type ImportRelink struct {
	ID, Template     int64
	Attributes, Hash string
}

// RelinkImportProducts rewrites the template and attributes of org's products.
func (s *tables) RelinkImportProducts(org enrichment.Org, relinks []ImportRelink, now string) error {
	return s.updateEach(org, "[[attributeTemplate]] = {:template}, [[attributes]] = {:attributes}, [[importHash]] = {:hash}, [[updated]] = {:now}",
		len(relinks), func(i int) (int64, dbx.Params) {
			r := relinks[i]
			return r.ID, dbx.Params{"template": optionalID(r.Template), "attributes": r.Attributes, "hash": r.Hash, "now": now}
		})
}

// DeactivateImportProducts deactivates org's products ids.
func (s *tables) DeactivateImportProducts(org enrichment.Org, ids []int64, now string) error {
	return s.updateEach(org, "[[active]] = FALSE, [[updated]] = {:now}", len(ids),
		func(i int) (int64, dbx.Params) { return ids[i], dbx.Params{"now": now} })
}

// updateEach runs set, an UPDATE's SET clause, on n of org's products
// through one prepared statement; row gives the i-th product's id and the
// parameters of set.
func (s *tables) updateEach(org enrichment.Org, set string, n int, row func(i int) (int64, dbx.Params)) error {
	if n == 0 {
		return nil
	}
	q := s.db().NewQuery("UPDATE {{products}} SET " + set + " WHERE [[id]] = {:id} AND [[organization]] = {:org}").Prepare()
	defer q.Close()
	for i := range n {
		id, params := row(i)
		params["id"], params["org"] = store.FormatID(id), string(org)
		if _, err := q.Bind(params).Execute(); err != nil {
			return fmt.Errorf("update product %d of organization %s: %w", id, org, err)
		}
	}
	return nil
}
