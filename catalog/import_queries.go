package catalog

import (
	"cmp"
	"database/sql"
	"fmt"
	"slices"
	"strconv"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

// ImportState is what an import keeps of an organization's stored catalog
// while it writes: templates and brands by name (a few thousand at most),
// which the upsert functions keep current. Products are not in it: they are
// looked up batch by batch (ImportProductsByKeys), so that an import's
// memory does not grow with the catalog.
type ImportState struct {
	Templates map[string]*ImportTemplate // by name
	Brands    map[string]*ImportBrand    // by name
}

// ImportTemplate is a stored attribute template and its option ids.
type ImportTemplate struct {
	ID      int64
	Active  bool
	Options map[string]int64           // attribute name → option id
	stored  map[string]ImportOptionRow // attribute name → the option as stored
}

// ImportBrand is a stored brand.
type ImportBrand struct {
	ID            int64
	Website, Slug string
}

// StoredProduct is what matching, the family checks and the unchanged
// check need of a stored product. Hash is its importHash: the digest of
// what the last import wrote, "" when unknown or changed since.
type StoredProduct struct {
	ID, Master      int64 // Master: its variant master, 0 for none
	SKU, ExternalID string
	Active          bool
	Hash            string
}

// templateOptionRow is a template of an organization with one of its
// options; the option's columns are null for a template without any.
type templateOptionRow struct {
	Template      string         `db:"template"`
	Name          string         `db:"name"`
	Active        bool           `db:"active"`
	Option        sql.NullString `db:"option"`
	Attr          sql.NullString `db:"attribute"`
	Unit          sql.NullString `db:"unit"`
	DataType      sql.NullString `db:"dataType"`
	Priority      sql.NullInt64  `db:"priority"`
	ShowOnWebsite sql.NullBool   `db:"showOnWebsite"`
	IsSearchable  sql.NullBool   `db:"isSearchable"`
}

// option is the row's option as the catalog file spells it.
func (r templateOptionRow) option() ImportOptionRow {
	return ImportOptionRow{Attribute: r.Attr.String, Unit: r.Unit.String, DataType: r.DataType.String,
		Priority: int(r.Priority.Int64), ShowOnWebsite: r.ShowOnWebsite.Bool, IsSearchable: r.IsSearchable.Bool}
}

// templateOptionRows reads org's templates with their options, by template
// name, then option id: what the import compares a file with and what the
// export writes.
func templateOptionRows(db dbx.Builder, org enrichment.Org) ([]templateOptionRow, error) {
	var rows []templateOptionRow
	err := db.NewQuery(`SELECT t.[[id]] AS [[template]], t.[[name]], t.[[active]], o.[[id]] AS [[option]], o.[[attribute]],
		o.[[unit]], o.[[dataType]], o.[[priority]], o.[[showOnWebsite]], o.[[isSearchable]]
		FROM {{attribute_templates}} t LEFT JOIN {{attribute_options}} o ON o.[[template]] = t.[[id]]
		WHERE t.[[organization]] = {:org} ORDER BY t.[[name]], CAST(o.[[id]] AS INTEGER)`).
		Bind(dbx.Params{"org": string(org)}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read templates of organization %s: %w", org, err)
	}
	return rows, nil
}

// LoadImportState reads org's templates, options and brands.
func (s *tables) LoadImportState(org enrichment.Org) (*ImportState, error) {
	st := &ImportState{
		Templates: map[string]*ImportTemplate{},
		Brands:    map[string]*ImportBrand{},
	}
	options, err := templateOptionRows(s.db(), org)
	if err != nil {
		return nil, err
	}
	for _, o := range options {
		t := st.Templates[o.Name]
		if t == nil {
			t = &ImportTemplate{ID: sqlparts.StoredID(o.Template), Active: o.Active, Options: map[string]int64{}, stored: map[string]ImportOptionRow{}}
			st.Templates[o.Name] = t
		}
		if o.Option.Valid {
			t.Options[o.Attr.String] = sqlparts.StoredID(o.Option.String)
			t.stored[o.Attr.String] = o.option()
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
		st.Brands[b.Name] = &ImportBrand{ID: sqlparts.StoredID(b.ID), Website: b.Website, Slug: b.Slug}
	}
	return st, nil
}

// HasImportProducts says whether org has any product, active or not: an
// import into an organization without any (a new merchant's first) knows
// that every product it finds was written by itself.
func (s *tables) HasImportProducts(org enrichment.Org) (bool, error) {
	var n int
	err := s.db().NewQuery(`SELECT COUNT(*) FROM (SELECT 1 FROM {{products}} WHERE [[organization]] = {:org} LIMIT 1)`).
		Bind(dbx.Params{"org": string(org)}).Row(&n)
	if err != nil {
		return false, fmt.Errorf("look for products of organization %s: %w", org, err)
	}
	return n > 0, nil
}

// storedProductColumns are the columns a StoredProduct is scanned from.
const storedProductColumns = "[[id]], [[sku]], [[externalId]], [[variantMaster]], [[active]], [[importHash]]"

// ImportProductsByKeys returns org's products whose SKU is one of skus or
// whose externalId is one of externalIDs, as they are now (the import's
// writes so far included), in id order. One query per call: the import
// asks once per batch, with a few hundred keys.
func (s *tables) ImportProductsByKeys(org enrichment.Org, skus, externalIDs []string) ([]StoredProduct, error) {
	// note: the keys find rowids in the indexes alone (idx_products_sku; the
	// partial idx_products_external_id, which the non-empty condition lets
	// the planner use), then each row is read once: a UNION of rows read a
	// product found by both keys twice, and a plain OR let the planner, on a
	// catalog without statistics, scan the organization's rows per batch
	return s.scanStoredProducts(org, `SELECT `+storedProductColumns+` FROM {{products}} WHERE [[rowid]] IN (
		SELECT [[rowid]] FROM {{products}} WHERE [[organization]] = {:org} AND `+sqlparts.InList("sku", "skus")+`
		UNION SELECT [[rowid]] FROM {{products}} WHERE [[organization]] = {:org} AND [[externalId]] != '' AND `+sqlparts.InList("externalId", "exts")+`)`,
		dbx.Params{"skus": sqlparts.InValues(skus), "exts": sqlparts.InValues(externalIDs)})
}

// ImportVariantsOf returns org's products whose variant master is one of
// masters, in id order.
func (s *tables) ImportVariantsOf(org enrichment.Org, masters []int64) ([]StoredProduct, error) {
	return s.scanStoredProducts(org, `SELECT `+storedProductColumns+` FROM {{products}}
		WHERE [[organization]] = {:org} AND [[variantMaster]] != '' AND `+sqlparts.InList("variantMaster", "masters"),
		dbx.Params{"masters": sqlparts.InValues(sqlparts.FormatIDs(masters))})
}

// scanStoredProducts runs query, which selects storedProductColumns of
// org's products, and returns the rows in id order.
func (s *tables) scanStoredProducts(org enrichment.Org, query string, params dbx.Params) ([]StoredProduct, error) {
	params["org"] = string(org)
	rows, err := s.db().NewQuery(query).Bind(params).Rows()
	if err != nil {
		return nil, fmt.Errorf("find products of organization %s: %w", org, err)
	}
	defer rows.Close()
	var out []StoredProduct
	for rows.Next() {
		var id, master string
		var p StoredProduct
		if err := rows.Scan(&id, &p.SKU, &p.ExternalID, &master, &p.Active, &p.Hash); err != nil {
			return nil, fmt.Errorf("find products of organization %s: %w", org, err)
		}
		p.ID, p.Master = sqlparts.StoredID(id), sqlparts.StoredID(master)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find products of organization %s: %w", org, err)
	}
	slices.SortFunc(out, func(a, b StoredProduct) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// EachActiveImportProduct calls fn with the id of each of org's active
// products, in id order, one row at a time.
func (s *tables) EachActiveImportProduct(org enrichment.Org, fn func(id int64)) error {
	rows, err := s.db().NewQuery(`SELECT [[id]] FROM {{products}} WHERE [[organization]] = {:org} AND [[active]] = TRUE
		ORDER BY CAST([[id]] AS INTEGER)`).Bind(dbx.Params{"org": string(org)}).Rows()
	if err != nil {
		return fmt.Errorf("list active products of organization %s: %w", org, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("list active products of organization %s: %w", org, err)
		}
		fn(sqlparts.StoredID(id))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list active products of organization %s: %w", org, err)
	}
	return nil
}

// ReserveImportIDs reserves n consecutive ids of collection (see NextIDs)
// and returns the first.
func (s *tables) ReserveImportIDs(collection string, n int) (int64, error) {
	return store.NextIDs(s.db(), collection, n)
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
// What is stored as the file gives it is not written. It reports whether
// the slots of a stored template changed (an option shown on the website
// was added, changed or hidden): its stored products' gaps are then stale.
func (s *tables) UpsertImportTemplate(org enrichment.Org, st *ImportState, t ImportTemplateRow, now string) (bool, error) {
	it := st.Templates[t.Name]
	if it == nil {
		it = &ImportTemplate{Options: map[string]int64{}, stored: map[string]ImportOptionRow{}}
	}
	existed, slotsChanged := it.ID != 0, false
	if it.ID == 0 || it.Active != t.Active {
		id, err := s.upsertRow(org, "attribute_templates", it.ID, dbx.Params{"name": t.Name, "active": t.Active}, now)
		if err != nil {
			return false, fmt.Errorf("template %q: %w", t.Name, err)
		}
		it.ID, it.Active, st.Templates[t.Name] = id, t.Active, it
	}
	for _, o := range t.Options {
		id := it.Options[o.Attribute]
		if id != 0 && it.stored[o.Attribute] == o {
			continue
		}
		slotsChanged = slotsChanged || existed && (o.ShowOnWebsite || it.stored[o.Attribute].ShowOnWebsite)
		id, err := s.upsertRow(org, "attribute_options", id, dbx.Params{
			"template": store.FormatID(it.ID), "attribute": o.Attribute, "unit": o.Unit, "dataType": o.DataType,
			"priority": o.Priority, "showOnWebsite": o.ShowOnWebsite, "isSearchable": o.IsSearchable,
		}, now)
		if err != nil {
			return false, fmt.Errorf("option %q of template %q: %w", o.Attribute, t.Name, err)
		}
		it.Options[o.Attribute], it.stored[o.Attribute] = id, o
	}
	return slotsChanged, nil
}

// UpsertImportBrand creates org's brand of that name or updates its website
// and slug; a nil website or slug keeps the stored one. It returns the id.
func (s *tables) UpsertImportBrand(org enrichment.Org, st *ImportState, name string, website, slug *string, now string) (int64, error) {
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
func (s *tables) upsertRow(org enrichment.Org, table string, id int64, values dbx.Params, now string) (int64, error) {
	values["updated"] = now
	if id != 0 {
		_, err := s.db().Update(table, values, dbx.HashExp{"id": store.FormatID(id), "organization": string(org)}).Execute()
		if err != nil {
			return 0, fmt.Errorf("update %s %d: %w", table, id, err)
		}
		return id, nil
	}
	id, err := store.NextIDs(s.db(), table, 1)
	if err != nil {
		return 0, err
	}
	values["id"], values["organization"], values["created"] = store.FormatID(id), string(org), now
	if _, err := s.db().Insert(table, values).Execute(); err != nil {
		return 0, fmt.Errorf("insert into %s: %w", table, err)
	}
	return id, nil
}

// TakeWriteLock makes the transaction SQLite's writer before it reads
// anything: a statement that writes (and changes nothing) waits its turn
// for the write lock, up to the busy timeout. note: an import that read
// first and wrote later was refused ("database is locked (517)",
// SQLITE_BUSY_SNAPSHOT) whenever the server beside it committed in
// between, and no waiting mends that; the server's writers now wait for
// the import instead, as they did once it had written.
func (s *tables) TakeWriteLock() error {
	if _, err := s.db().NewQuery("DELETE FROM {{" + schema.ChangesHorizonTable + "}} WHERE 0").Execute(); err != nil {
		return fmt.Errorf("wait for the database's write lock: %w", err)
	}
	return nil
}

// WithoutMemoryMap runs fn with the store's connection reading the
// database through its page cache instead of the memory map the service
// uses (service/db.go), then restores the map. note: an import reads every
// product row of the organization once; through the map, every page read
// would stay in the process's resident memory (RSS) as a mapped file page,
// so a re-import of 100k products peaked at 510 MB instead of 230 MB, for
// no gain in speed. The page cache stays the service's 8 MB: a larger one
// saved little (1M products: 67 s with 8 MB, 63 s with 32 MB, on a noisy
// machine) and cost half again its size in RSS at every catalog size.
func (s *tables) WithoutMemoryMap(fn func() error) error {
	return s.withPragma("mmap_size", 0, fn)
}

// withPragma runs fn with the connection setting name set to value, then
// puts the previous value back.
func (s *tables) withPragma(name string, value int64, fn func() error) (err error) {
	return withPragmaOn(s.db(), name, value, fn)
}

// withPragmaOn is withPragma on the connection of db (a transaction).
func withPragmaOn(db dbx.Builder, name string, value int64, fn func() error) (err error) {
	var was int64
	if err := db.NewQuery("PRAGMA " + name).Row(&was); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if _, err := db.NewQuery("PRAGMA " + name + " = " + strconv.FormatInt(value, 10)).Execute(); err != nil {
		return fmt.Errorf("set %s: %w", name, err)
	}
	defer func() { // note: a connection setting, so put it back
		_, resetErr := db.NewQuery("PRAGMA " + name + " = " + strconv.FormatInt(was, 10)).Execute()
		if err == nil && resetErr != nil {
			err = fmt.Errorf("reset %s: %w", name, resetErr)
		}
	}()
	return fn()
}

// AnalyzeCatalog refreshes the query planner's statistics of the catalog
// tables, which a bulk load leaves stale or missing. It samples (SQLite's
// analysis_limit) so that its cost does not grow with the tables.
func (s *tables) AnalyzeCatalog() error {
	return s.withPragma("analysis_limit", 1000, func() error {
		for _, table := range []string{"products", "brands", "attribute_templates", "attribute_options"} {
			if _, err := s.db().NewQuery("ANALYZE {{" + table + "}}").Execute(); err != nil {
				return fmt.Errorf("analyze %s: %w", table, err)
			}
		}
		return nil
	})
}

// optionalID renders a relation id, "" for none.
func optionalID(id int64) string {
	if id == 0 {
		return ""
	}
	return store.FormatID(id)
}
