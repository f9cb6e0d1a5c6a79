package catalog

import (
	"bufio"
	"encoding/json/v2"
	"fmt"
	"io"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// Export writes org's catalog, the values accepted revisions set included,
// to w in format (FormatJSON, the import's format, or FormatShopifyCSV),
// and returns the number of products written. It reads one snapshot of the
// database a page at a time, so its memory does not grow with the catalog;
// see docs/catalog-format.md ("Export").
func Export(app core.App, org enrichment.Org, w io.Writer, format string) (int, error) {
	s := store.New(app)
	ok, err := s.Accounts().OrgExists(org)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("no organization with id %s", org)
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var n int
	err = (&tables{app: app}).ReadCatalog(org, func(r *CatalogReader) error {
		var err error
		switch format {
		case "", FormatJSON:
			n, err = exportJSON(r, bw)
		case FormatShopifyCSV:
			n, err = exportShopify(r, bw)
		default:
			return fmt.Errorf("unknown catalog format %q (want %s or %s)", format, FormatJSON, FormatShopifyCSV)
		}
		return err
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return n, fmt.Errorf("export the catalog of organization %s: %w", org, err)
	}
	return n, nil
}

// exportJSON writes the catalog file: the templates, then one product a
// line.
func exportJSON(r *CatalogReader, w *bufio.Writer) (int, error) {
	templates, err := r.Templates()
	if err != nil {
		return 0, err
	}
	names := make(map[int64]string, len(templates))
	w.WriteString(`{"attributeTemplates": [`)
	for i, t := range templates {
		names[t.ID] = t.Name
		out := Template{Name: t.Name, Active: &t.Active, Options: make([]Option, len(t.Options))}
		for j, o := range t.Options {
			out.Options[j] = Option{Attribute: o.Attribute, Unit: nonEmpty(o.Unit), Priority: o.Priority, DataType: nonEmpty(o.DataType),
				ShowOnWebsite: o.ShowOnWebsite, IsSearchable: o.IsSearchable}
		}
		if err := writeJSONItem(w, i, out); err != nil {
			return 0, err
		}
	}
	w.WriteString("\n],\n\"products\": [")
	brands, err := r.Brands()
	if err != nil {
		return 0, err
	}
	n := 0
	err = r.Products(false, func(page []CatalogProduct) error {
		for _, sp := range page {
			p, err := exportProduct(sp, names, brands)
			if err != nil {
				return err
			}
			if err := writeJSONItem(w, n, p); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	_, err = w.WriteString("\n]}\n")
	return n, err
}

// writeJSONItem writes the i-th element of a list on a line of its own.
func writeJSONItem(w *bufio.Writer, i int, v any) error {
	if i > 0 {
		w.WriteByte(',')
	}
	w.WriteByte('\n')
	return json.MarshalWrite(w, v)
}

// exportProduct is a stored product as the catalog file gives it.
func exportProduct(sp CatalogProduct, templates map[int64]string, brands map[int64]CatalogBrand) (Product, error) {
	active := sp.Active
	p := Product{
		SKU: sp.SKU, ExternalID: sp.ExternalID, GTIN: sp.GTIN, Name: sp.Name, Slug: sp.Slug, Description: sp.Description,
		Active: &active, AttributeTemplate: templates[sp.Template], VariantMaster: sp.MasterSKU,
	}
	if b, ok := brands[sp.Brand]; ok {
		p.Brand = &Brand{Name: b.Name, Website: &b.Website, Slug: &b.Slug}
	}
	attrs, err := storedAttributes(sp.Attributes)
	if err != nil {
		return p, fmt.Errorf("product %d: %w", sp.ID, err)
	}
	p.Attributes = make([]Attribute, len(attrs))
	for i, a := range attrs {
		p.Attributes[i] = Attribute{Attribute: a.Attribute, Detail: a.Detail}
	}
	for _, f := range []struct {
		raw []byte
		dst *[]string
	}{{sp.Categories, &p.Categories}, {sp.Images, &p.Images}, {sp.Files, &p.Files}} {
		if *f.dst, err = storedStrings(f.raw); err != nil {
			return p, fmt.Errorf("product %d: %w", sp.ID, err)
		}
	}
	if sp.VariantAttributes != nil {
		va, err := storedStrings(sp.VariantAttributes)
		if err != nil {
			return p, fmt.Errorf("product %d: %w", sp.ID, err)
		}
		p.VariantAttributes = &va
	}
	return p, nil
}

// storedAttributes decodes a product's stored attributes.
func storedAttributes(raw []byte) ([]enrichment.StoredAttribute, error) {
	var out []enrichment.StoredAttribute
	if len(raw) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("stored attributes: %w", err)
	}
	return out, nil
}

// storedStrings decodes a stored JSON list of strings (empty, never nil).
func storedStrings(raw []byte) ([]string, error) {
	out := []string{}
	if len(raw) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("stored list: %w", err)
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// nonEmpty is s, nil for "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
