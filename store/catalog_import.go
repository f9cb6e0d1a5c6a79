package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/dbx"
)

// The catalog import writes with raw SQL: no hooks, no per-record validation,
// so it sets every column itself (id, created, updated included). Call these
// on a Store bound to the import's transaction (New(txApp)).

// ImportState is what an import needs to know of an organization's stored
// catalog before it writes: names and keys mapped to ids, nothing more. The
// upsert functions keep it current as they write.
type ImportState struct {
	Templates    map[string]*ImportTemplate // by name
	Brands       map[string]*ImportBrand    // by name
	BySKU        map[string]StoredProduct   // by SKU; the lowest id when SKUs repeat
	ByExternalID map[string]int64           // by externalId, non-empty ones only
	Variants     []StoredVariant            // stored products that have a variant master
}

// ImportTemplate is a stored attribute template and its option ids.
type ImportTemplate struct {
	ID      int64
	Options map[string]int64 // attribute name → option id
}

// ImportBrand is a stored brand.
type ImportBrand struct {
	ID            int64
	Website, Slug string
}

// StoredProduct is what matching needs of a stored product.
type StoredProduct struct {
	ID            int64
	HasExternalID bool
}

// StoredVariant is a stored product that names a variant master.
type StoredVariant struct {
	ID, Master int64
	SKU        string
}

// LoadImportState reads org's templates, options, brands and product keys.
func (s *Store) LoadImportState(org enrichment.Org) (*ImportState, error) {
	st := &ImportState{
		Templates:    map[string]*ImportTemplate{},
		Brands:       map[string]*ImportBrand{},
		BySKU:        map[string]StoredProduct{},
		ByExternalID: map[string]int64{},
	}
	var options []struct {
		Template string         `db:"template"`
		Name     string         `db:"name"`
		Option   sql.NullString `db:"option"`
		Attr     sql.NullString `db:"attribute"`
	}
	err := s.db().NewQuery(`SELECT t.[[id]] AS [[template]], t.[[name]], o.[[id]] AS [[option]], o.[[attribute]]
		FROM {{attribute_templates}} t LEFT JOIN {{attribute_options}} o ON o.[[template]] = t.[[id]]
		WHERE t.[[organization]] = {:org}`).Bind(dbx.Params{"org": string(org)}).All(&options)
	if err != nil {
		return nil, fmt.Errorf("load templates of organization %s: %w", org, err)
	}
	for _, o := range options {
		t := st.Templates[o.Name]
		if t == nil {
			t = &ImportTemplate{ID: ParseID(o.Template), Options: map[string]int64{}}
			st.Templates[o.Name] = t
		}
		if o.Option.Valid {
			t.Options[o.Attr.String] = ParseID(o.Option.String)
		}
	}

	var brands []struct {
		ID      string `db:"id"`
		Name    string `db:"name"`
		Website string `db:"website"`
		Slug    string `db:"slug"`
	}
	err = s.db().Select("id", "name", "website", "slug").From("brands").Where(dbx.HashExp{"organization": string(org)}).All(&brands)
	if err != nil {
		return nil, fmt.Errorf("load brands of organization %s: %w", org, err)
	}
	for _, b := range brands {
		st.Brands[b.Name] = &ImportBrand{ID: ParseID(b.ID), Website: b.Website, Slug: b.Slug}
	}

	if err := s.loadProductKeys(org, st); err != nil {
		return nil, err
	}
	return st, nil
}

// loadProductKeys scans the product keys row by row: there may be many.
func (s *Store) loadProductKeys(org enrichment.Org, st *ImportState) error {
	rows, err := s.db().Select("id", "sku", "externalId", "variantMaster").From("products").
		Where(dbx.HashExp{"organization": string(org)}).OrderBy("CAST(id AS INTEGER)").Rows()
	if err != nil {
		return fmt.Errorf("load products of organization %s: %w", org, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, sku, ext, master string
		if err := rows.Scan(&id, &sku, &ext, &master); err != nil {
			return fmt.Errorf("load products of organization %s: %w", org, err)
		}
		n := ParseID(id)
		if _, seen := st.BySKU[sku]; !seen {
			st.BySKU[sku] = StoredProduct{ID: n, HasExternalID: ext != ""}
		}
		if _, seen := st.ByExternalID[ext]; ext != "" && !seen {
			st.ByExternalID[ext] = n
		}
		if master != "" {
			st.Variants = append(st.Variants, StoredVariant{ID: n, Master: ParseID(master), SKU: sku})
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load products of organization %s: %w", org, err)
	}
	return nil
}

// ReserveImportIDs reserves n consecutive ids of collection (see NextIDs)
// and returns the first.
func (s *Store) ReserveImportIDs(collection string, n int) (int64, error) {
	return NextIDs(s.db(), collection, n)
}

// ImportTemplateRow is an attribute template as a catalog file gives it.
type ImportTemplateRow struct {
	Name    string
	Active  bool
	Options []ImportOptionRow
}

// ImportOptionRow is a template option; "" stands for a null unit or data type.
type ImportOptionRow struct {
	Attribute, Unit, DataType   string
	Priority                    int
	ShowOnWebsite, IsSearchable bool
}

// UpsertImportTemplate creates or updates org's template of t.Name and
// upserts its options by attribute, leaving other stored options alone.
func (s *Store) UpsertImportTemplate(org enrichment.Org, st *ImportState, t ImportTemplateRow, now string) error {
	it := st.Templates[t.Name]
	if it == nil {
		it = &ImportTemplate{Options: map[string]int64{}}
	}
	id, err := s.upsertRow(org, "attribute_templates", it.ID, dbx.Params{"name": t.Name, "active": t.Active}, now)
	if err != nil {
		return fmt.Errorf("template %q: %w", t.Name, err)
	}
	it.ID, st.Templates[t.Name] = id, it
	for _, o := range t.Options {
		id, err := s.upsertRow(org, "attribute_options", it.Options[o.Attribute], dbx.Params{
			"template": FormatID(it.ID), "attribute": o.Attribute, "unit": o.Unit, "dataType": o.DataType,
			"priority": o.Priority, "showOnWebsite": o.ShowOnWebsite, "isSearchable": o.IsSearchable,
		}, now)
		if err != nil {
			return fmt.Errorf("option %q of template %q: %w", o.Attribute, t.Name, err)
		}
		it.Options[o.Attribute] = id
	}
	return nil
}

// UpsertImportBrand creates org's brand of that name or updates its website
// and slug; a nil website or slug keeps the stored one. It returns the id.
func (s *Store) UpsertImportBrand(org enrichment.Org, st *ImportState, name string, website, slug *string, now string) (int64, error) {
	b := st.Brands[name]
	if b == nil {
		b = &ImportBrand{}
	} else if (website == nil || *website == b.Website) && (slug == nil || *slug == b.Slug) {
		return b.ID, nil
	}
	if website != nil {
		b.Website = *website
	}
	if slug != nil {
		b.Slug = *slug
	}
	id, err := s.upsertRow(org, "brands", b.ID, dbx.Params{"name": name, "website": b.Website, "slug": b.Slug}, now)
	if err != nil {
		return 0, fmt.Errorf("brand %q: %w", name, err)
	}
	b.ID, st.Brands[name] = id, b
	return id, nil
}

// upsertRow updates org's record id of table with values, or inserts a
// record with a new id when id is 0; it returns the id.
func (s *Store) upsertRow(org enrichment.Org, table string, id int64, values dbx.Params, now string) (int64, error) {
	values["updated"] = now
	if id != 0 {
		_, err := s.db().Update(table, values, dbx.HashExp{"id": FormatID(id), "organization": string(org)}).Execute()
		if err != nil {
			return 0, fmt.Errorf("update %s %d: %w", table, id, err)
		}
		return id, nil
	}
	id, err := NextIDs(s.db(), table, 1)
	if err != nil {
		return 0, err
	}
	values["id"], values["organization"], values["created"] = FormatID(id), string(org), now
	if _, err := s.db().Insert(table, values).Execute(); err != nil {
		return 0, fmt.Errorf("insert into %s: %w", table, err)
	}
	return id, nil
}

// ImportProductRow is one product row as the import writes it. Template,
// Brand and VariantMaster are record ids, 0 for none; the JSON fields are
// JSON text, VariantAttributes nil for SQL NULL.
type ImportProductRow struct {
	ID                                      int64
	Stored                                  bool // updates a stored product; else a new one
	SKU, ExternalID, GTIN, Name, Slug, Desc string
	Active                                  bool
	Template, Brand, VariantMaster          int64
	Attributes, Categories, Images, Files   string
	VariantAttributes                       *string
}

// ImportProductWriter writes product rows of one organization through two
// prepared single-row statements, an INSERT for new products and an UPDATE
// for stored ones; Close it when done. note: single rows measured fastest:
// a multi-row INSERT makes SQLite copy every page it touches into a
// statement journal, and the driver binds parameters in time quadratic in
// their number. An upsert would too, since products has UPDATE triggers
// (1.5x the import time).
type ImportProductWriter struct {
	s              *Store
	org            enrichment.Org
	now            string
	insert, update *dbx.Query
	params         dbx.Params
}

// NewImportProductWriter returns a writer of org's products stamped now.
func (s *Store) NewImportProductWriter(org enrichment.Org, now string) *ImportProductWriter {
	return &ImportProductWriter{s: s, org: org, now: now, params: dbx.Params{}}
}

// Write stores rows: a Stored row updates its product (all fields but
// created; an empty externalId keeps the stored one), any other is inserted.
func (w *ImportProductWriter) Write(rows []ImportProductRow) error {
	if w.insert == nil {
		w.insert = w.s.db().NewQuery(productInsertSQL).Prepare()
		w.update = w.s.db().NewQuery(productUpdateSQL).Prepare()
	}
	p := w.params
	for _, r := range rows {
		p["id"], p["organization"], p["sku"], p["externalId"] = FormatID(r.ID), string(w.org), r.SKU, r.ExternalID
		p["gtin"], p["name"], p["slug"], p["description"], p["active"] = r.GTIN, r.Name, r.Slug, r.Desc, r.Active
		p["attributeTemplate"], p["brand"] = optionalID(r.Template), optionalID(r.Brand)
		p["variantMaster"], p["attributes"], p["categories"] = optionalID(r.VariantMaster), r.Attributes, r.Categories
		p["images"], p["files"], p["created"], p["updated"] = r.Images, r.Files, w.now, w.now
		p["variantAttributes"] = nil
		if r.VariantAttributes != nil {
			p["variantAttributes"] = *r.VariantAttributes
		}
		stmt := w.insert
		if r.Stored {
			stmt = w.update
		}
		res, err := stmt.Bind(p).Execute()
		if err != nil {
			return fmt.Errorf("write product %q of organization %s: %w", r.SKU, w.org, err)
		}
		if n, err := res.RowsAffected(); err == nil && n != 1 {
			return fmt.Errorf("write product %q of organization %s: product %d is not the organization's", r.SKU, w.org, r.ID)
		}
	}
	return nil
}

// Close releases the prepared statements.
func (w *ImportProductWriter) Close() error {
	if w.insert == nil {
		return nil
	}
	return errors.Join(w.insert.Close(), w.update.Close())
}

// productColumnsWritten are the columns an import writes.
var productColumnsWritten = []string{"id", "organization", "sku", "externalId", "gtin", "name", "slug", "description",
	"active", "attributeTemplate", "brand", "variantMaster", "attributes", "categories", "images",
	"files", "variantAttributes", "created", "updated"}

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
		default:
			set = append(set, "[["+c+"]] = {:"+c+"}")
		}
	}
	// note: the organization never fails to match by construction (ids come
	// from org's own rows), but a row of another organization is never overwritten
	return "UPDATE {{products}} SET " + strings.Join(set, ", ") +
		" WHERE [[id]] = {:id} AND [[organization]] = {:organization}"
}()

// ImportVariantLink sets product ID's variant master to Master.
type ImportVariantLink struct{ ID, Master int64 }

// SetImportVariantMasters points org's products at their variant masters.
func (s *Store) SetImportVariantMasters(org enrichment.Org, links []ImportVariantLink) error {
	return s.updateEach(org, "[[variantMaster]] = {:a}", len(links), func(i int) (int64, any, any) {
		return links[i].ID, FormatID(links[i].Master), nil
	})
}

// updateEach runs set, an UPDATE's SET clause over {:a} and {:b}, on n of
// org's products through one prepared statement; row gives the i-th
// product's id, a and b.
func (s *Store) updateEach(org enrichment.Org, set string, n int, row func(i int) (id int64, a, b any)) error {
	if n == 0 {
		return nil
	}
	q := s.db().NewQuery("UPDATE {{products}} SET " + set + " WHERE [[id]] = {:id} AND [[organization]] = {:org}").Prepare()
	defer q.Close()
	for i := range n {
		id, a, b := row(i)
		if _, err := q.Bind(dbx.Params{"id": FormatID(id), "org": string(org), "a": a, "b": b}).Execute(); err != nil {
			return fmt.Errorf("update product %d of organization %s: %w", id, org, err)
		}
	}
	return nil
}

// RelinkImportProducts rewrites the template and attributes of org's
// products ids: relink gets a product's stored attributes JSON and returns
// its template id and new attributes JSON.
func (s *Store) RelinkImportProducts(org enrichment.Org, ids []int64, relink func(id int64, attributes string) (int64, string)) error {
	type fix struct {
		id, template int64
		attributes   string
	}
	var fixes []fix
	for start := 0; start < len(ids); start += 500 {
		var rows []struct {
			ID         string `db:"id"`
			Attributes string `db:"attributes"`
		}
		err := s.db().Select("id", "attributes").From("products").
			Where(dbx.HashExp{"organization": string(org)}).
			AndWhere(in("id", stringIDs(ids[start:min(start+500, len(ids))]))).All(&rows)
		if err != nil {
			return fmt.Errorf("read product attributes of organization %s: %w", org, err)
		}
		for _, r := range rows {
			template, attributes := relink(ParseID(r.ID), r.Attributes)
			fixes = append(fixes, fix{ParseID(r.ID), template, attributes})
		}
	}
	return s.updateEach(org, "[[attributeTemplate]] = {:a}, [[attributes]] = {:b}", len(fixes), func(i int) (int64, any, any) {
		return fixes[i].id, optionalID(fixes[i].template), fixes[i].attributes
	})
}

// AnalyzeCatalog refreshes the query planner's statistics of the catalog
// tables, which a bulk load leaves stale or missing. It samples (SQLite's
// analysis_limit) so that its cost does not grow with the tables.
func (s *Store) AnalyzeCatalog() (err error) {
	var limit int
	if err := s.db().NewQuery("PRAGMA analysis_limit").Row(&limit); err != nil {
		return fmt.Errorf("read analysis_limit: %w", err)
	}
	if _, err := s.db().NewQuery("PRAGMA analysis_limit = 1000").Execute(); err != nil {
		return fmt.Errorf("set analysis_limit: %w", err)
	}
	defer func() { // note: a connection setting, so put it back
		_, resetErr := s.db().NewQuery("PRAGMA analysis_limit = " + strconv.Itoa(limit)).Execute()
		if err == nil && resetErr != nil {
			err = fmt.Errorf("reset analysis_limit: %w", resetErr)
		}
	}()
	for _, table := range []string{"products", "brands", "attribute_templates", "attribute_options"} {
		if _, err := s.db().NewQuery("ANALYZE {{" + table + "}}").Execute(); err != nil {
			return fmt.Errorf("analyze %s: %w", table, err)
		}
	}
	return nil
}

// optionalID renders a relation id, "" for none.
func optionalID(id int64) string {
	if id == 0 {
		return ""
	}
	return FormatID(id)
}
