package store

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

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
	where := dbx.HashExp{"organization": string(org)}

	var templates []struct {
		ID   string `db:"id"`
		Name string `db:"name"`
	}
	if err := s.db().Select("id", "name").From("attribute_templates").Where(where).All(&templates); err != nil {
		return nil, fmt.Errorf("load templates of organization %s: %w", org, err)
	}
	byID := make(map[string]*ImportTemplate, len(templates))
	for _, t := range templates {
		it := &ImportTemplate{ID: ParseID(t.ID), Options: map[string]int64{}}
		st.Templates[t.Name] = it
		byID[t.ID] = it
	}
	var options []struct {
		ID        string `db:"id"`
		Template  string `db:"template"`
		Attribute string `db:"attribute"`
	}
	if err := s.db().Select("id", "template", "attribute").From("attribute_options").Where(where).All(&options); err != nil {
		return nil, fmt.Errorf("load template options of organization %s: %w", org, err)
	}
	for _, o := range options {
		if t, ok := byID[o.Template]; ok {
			t.Options[o.Attribute] = ParseID(o.ID)
		}
	}

	var brands []struct {
		ID      string `db:"id"`
		Name    string `db:"name"`
		Website string `db:"website"`
		Slug    string `db:"slug"`
	}
	if err := s.db().Select("id", "name", "website", "slug").From("brands").Where(where).All(&brands); err != nil {
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
	it, ok := st.Templates[t.Name]
	if ok {
		_, err := s.db().Update("attribute_templates",
			dbx.Params{"active": t.Active, "updated": now},
			dbx.HashExp{"id": formatID(it.ID), "organization": string(org)}).Execute()
		if err != nil {
			return fmt.Errorf("update template %q: %w", t.Name, err)
		}
	} else {
		id, err := NextIDs(s.db(), "attribute_templates", 1)
		if err != nil {
			return err
		}
		_, err = s.db().Insert("attribute_templates", dbx.Params{
			"id": formatID(id), "organization": string(org), "name": t.Name, "active": t.Active,
			"created": now, "updated": now,
		}).Execute()
		if err != nil {
			return fmt.Errorf("insert template %q: %w", t.Name, err)
		}
		it = &ImportTemplate{ID: id, Options: map[string]int64{}}
		st.Templates[t.Name] = it
	}

	for _, o := range t.Options {
		values := dbx.Params{"unit": o.Unit, "dataType": o.DataType, "priority": o.Priority,
			"showOnWebsite": o.ShowOnWebsite, "isSearchable": o.IsSearchable, "updated": now}
		if id, ok := it.Options[o.Attribute]; ok {
			_, err := s.db().Update("attribute_options", values,
				dbx.HashExp{"id": formatID(id), "organization": string(org)}).Execute()
			if err != nil {
				return fmt.Errorf("update option %q of template %q: %w", o.Attribute, t.Name, err)
			}
			continue
		}
		id, err := NextIDs(s.db(), "attribute_options", 1)
		if err != nil {
			return err
		}
		values["id"], values["organization"], values["template"] = formatID(id), string(org), formatID(it.ID)
		values["attribute"], values["created"] = o.Attribute, now
		if _, err := s.db().Insert("attribute_options", values).Execute(); err != nil {
			return fmt.Errorf("insert option %q of template %q: %w", o.Attribute, t.Name, err)
		}
		it.Options[o.Attribute] = id
	}
	return nil
}

// UpsertImportBrand creates org's brand of that name or updates its website
// and slug; a nil website or slug keeps the stored one. It returns the id.
func (s *Store) UpsertImportBrand(org enrichment.Org, st *ImportState, name string, website, slug *string, now string) (int64, error) {
	if b, ok := st.Brands[name]; ok {
		if (website == nil || *website == b.Website) && (slug == nil || *slug == b.Slug) {
			return b.ID, nil
		}
		if website != nil {
			b.Website = *website
		}
		if slug != nil {
			b.Slug = *slug
		}
		_, err := s.db().Update("brands", dbx.Params{"website": b.Website, "slug": b.Slug, "updated": now},
			dbx.HashExp{"id": formatID(b.ID), "organization": string(org)}).Execute()
		if err != nil {
			return 0, fmt.Errorf("update brand %q: %w", name, err)
		}
		return b.ID, nil
	}
	id, err := NextIDs(s.db(), "brands", 1)
	if err != nil {
		return 0, err
	}
	b := &ImportBrand{ID: id}
	if website != nil {
		b.Website = *website
	}
	if slug != nil {
		b.Slug = *slug
	}
	_, err = s.db().Insert("brands", dbx.Params{"id": formatID(id), "organization": string(org),
		"name": name, "website": b.Website, "slug": b.Slug, "created": now, "updated": now}).Execute()
	if err != nil {
		return 0, fmt.Errorf("insert brand %q: %w", name, err)
	}
	st.Brands[name] = b
	return id, nil
}

// ImportProductRow is one product row as the import writes it. Template,
// Brand and VariantMaster are record ids, 0 for none; the JSON fields are
// JSON text, VariantAttributes nil for SQL NULL.
type ImportProductRow struct {
	ID                                      int64
	SKU, ExternalID, GTIN, Name, Slug, Desc string
	Active                                  bool
	Template, Brand, VariantMaster          int64
	Attributes, Categories, Images, Files   string
	VariantAttributes                       *string
}

// productImportColumns are written by UpsertImportProducts in this order.
var productImportColumns = []string{"id", "organization", "sku", "externalId", "gtin", "name", "slug",
	"description", "active", "attributeTemplate", "brand", "variantMaster", "attributes", "categories",
	"images", "files", "variantAttributes", "created", "updated"}

// productUpsertChunk rows go into one INSERT (19 parameters each).
const productUpsertChunk = 100

// UpsertImportProducts writes rows to org's products in multi-row
// statements: a row whose id exists is updated (all fields but created; an
// empty externalId keeps the stored one), any other row is inserted.
func (s *Store) UpsertImportProducts(org enrichment.Org, rows []ImportProductRow, now string) error {
	for len(rows) > 0 {
		n := min(len(rows), productUpsertChunk)
		params := make(dbx.Params, n*len(productImportColumns))
		for i, r := range rows[:n] {
			values := []any{formatID(r.ID), string(org), r.SKU, r.ExternalID, r.GTIN, r.Name, r.Slug,
				r.Desc, r.Active, optionalID(r.Template), optionalID(r.Brand), optionalID(r.VariantMaster),
				r.Attributes, r.Categories, r.Images, r.Files, nil, now, now}
			if r.VariantAttributes != nil {
				values[16] = *r.VariantAttributes
			}
			for j, v := range values {
				params[paramName(i, j)] = v
			}
		}
		if _, err := s.db().NewQuery(productUpsertSQL(n)).Bind(params).Execute(); err != nil {
			return fmt.Errorf("write products of organization %s (SKU %q and on): %w", org, rows[0].SKU, err)
		}
		rows = rows[n:]
	}
	return nil
}

var upsertSQLCache sync.Map // int → string

// productUpsertSQL builds (once per size) the upsert of n rows.
func productUpsertSQL(n int) string {
	if q, ok := upsertSQLCache.Load(n); ok {
		return q.(string)
	}
	var b strings.Builder
	b.WriteString("INSERT INTO {{products}} (")
	for j, c := range productImportColumns {
		if j > 0 {
			b.WriteString(", ")
		}
		b.WriteString("[[" + c + "]]")
	}
	b.WriteString(") VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(")
		for j := range productImportColumns {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("{:" + paramName(i, j) + "}")
		}
		b.WriteString(")")
	}
	b.WriteString(" ON CONFLICT([[id]]) DO UPDATE SET ")
	for j, c := range productImportColumns[2:] {
		switch c {
		case "created":
			continue
		case "externalId":
			b.WriteString("[[externalId]] = COALESCE(NULLIF(excluded.[[externalId]], ''), [[products.externalId]])")
		default:
			b.WriteString("[[" + c + "]] = excluded.[[" + c + "]]")
		}
		if j < len(productImportColumns)-3 {
			b.WriteString(", ")
		}
	}
	// note: never reached by construction (ids come from org's own rows or
	// the sequence), but a row of another organization is never overwritten
	b.WriteString(" WHERE [[products.organization]] = excluded.[[organization]]")
	q := b.String()
	upsertSQLCache.Store(n, q)
	return q
}

func paramName(row, col int) string {
	return "p" + strconv.Itoa(row) + "_" + strconv.Itoa(col)
}

// ImportVariantLink sets product ID's variant master to Master.
type ImportVariantLink struct{ ID, Master int64 }

// SetImportVariantMasters points org's products at their variant masters.
func (s *Store) SetImportVariantMasters(org enrichment.Org, links []ImportVariantLink) error {
	if len(links) == 0 {
		return nil
	}
	q := s.db().NewQuery("UPDATE {{products}} SET [[variantMaster]] = {:master} " +
		"WHERE [[id]] = {:id} AND [[organization]] = {:org}").Prepare()
	defer q.Close()
	for _, l := range links {
		_, err := q.Bind(dbx.Params{"master": formatID(l.Master), "id": formatID(l.ID), "org": string(org)}).Execute()
		if err != nil {
			return fmt.Errorf("set variant master of product %d: %w", l.ID, err)
		}
	}
	return nil
}

// ImportProductAttributes returns the stored attributes JSON of org's products ids.
func (s *Store) ImportProductAttributes(org enrichment.Org, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 500)
		var rows []struct {
			ID         string `db:"id"`
			Attributes string `db:"attributes"`
		}
		err := s.db().Select("id", "attributes").From("products").
			Where(dbx.HashExp{"organization": string(org)}).
			AndWhere(dbx.In("id", idStrings(ids[:n])...)).All(&rows)
		if err != nil {
			return nil, fmt.Errorf("read product attributes of organization %s: %w", org, err)
		}
		for _, r := range rows {
			out[ParseID(r.ID)] = r.Attributes
		}
		ids = ids[n:]
	}
	return out, nil
}

// ImportTemplateFix sets a product's template and re-linked attributes.
type ImportTemplateFix struct {
	ID, Template int64
	Attributes   string
}

// SetImportProductTemplates applies fixes to org's products.
func (s *Store) SetImportProductTemplates(org enrichment.Org, fixes []ImportTemplateFix) error {
	if len(fixes) == 0 {
		return nil
	}
	q := s.db().NewQuery("UPDATE {{products}} SET [[attributeTemplate]] = {:template}, [[attributes]] = {:attributes} " +
		"WHERE [[id]] = {:id} AND [[organization]] = {:org}").Prepare()
	defer q.Close()
	for _, f := range fixes {
		_, err := q.Bind(dbx.Params{"template": optionalID(f.Template), "attributes": f.Attributes,
			"id": formatID(f.ID), "org": string(org)}).Execute()
		if err != nil {
			return fmt.Errorf("link template of product %d: %w", f.ID, err)
		}
	}
	return nil
}

// AnalyzeCatalog refreshes the query planner's statistics of the catalog
// tables, which a bulk load leaves stale or missing.
func (s *Store) AnalyzeCatalog() error {
	for _, table := range []string{"products", "brands", "attribute_templates", "attribute_options"} {
		if _, err := s.db().NewQuery("ANALYZE {{" + table + "}}").Execute(); err != nil {
			return fmt.Errorf("analyze %s: %w", table, err)
		}
	}
	return nil
}

func formatID(id int64) string {
	return strconv.FormatInt(id, 10)
}

// optionalID renders a relation id, "" for none.
func optionalID(id int64) string {
	if id == 0 {
		return ""
	}
	return formatID(id)
}
