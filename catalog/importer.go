package catalog

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"strconv"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
)

// batchSize products are matched, numbered and written together.
const batchSize = 500

// importer holds one import's state. Besides the store's lookup maps it
// keeps only small per-product facts (SKU → id, variant links), never the
// products themselves beyond the current batch.
type importer struct {
	s     *store.Store
	org   enrichment.Org
	now   string
	state *store.ImportState
	res   Result

	templatesRead bool            // the file's templates are written: products link at once
	templateIdx   map[string]int  // the file's template names → index
	grown         map[string]bool // templates the file created or gave new options
	brands        map[string]bool // brand names seen in the file

	skus    map[string]fileProduct // the file's SKUs
	exts    map[string]int         // the file's externalIds → product index
	targets map[int64]fileProduct  // stored products the file updates
	links   []variantLink          // every variant of the file
	early   []earlyProduct         // products with a template, read before the templates
	batch   []pendingProduct
	writer  *store.ImportProductWriter
}

// fileProduct is what the import remembers of each product of the file.
type fileProduct struct {
	id          int64 // 0 until its batch is written
	index, line int
	variant     bool
}

type variantLink struct {
	id          int64
	index, line int
	master      string // SKU
	set         bool   // written already (the master came earlier in the file)
}

type earlyProduct struct {
	id          int64
	index, line int
	template    string
}

type pendingProduct struct {
	decoded
	brand int64
}

func newImporter(s *store.Store, org enrichment.Org) (*importer, error) {
	state, err := s.LoadImportState(org)
	if err != nil {
		return nil, err
	}
	stamp := now()
	return &importer{
		s: s, org: org, now: stamp, state: state,
		writer:      s.NewImportProductWriter(org, stamp),
		templateIdx: map[string]int{},
		grown:       map[string]bool{},
		brands:      map[string]bool{},
		skus:        map[string]fileProduct{},
		exts:        map[string]int{},
		targets:     map[int64]fileProduct{},
	}, nil
}

// writeTemplates checks that the file's template names are unique (lines[i]
// is where template i starts) and upserts the templates.
func (im *importer) writeTemplates(templates []Template, lines []int) error {
	for i := range templates {
		t := &templates[i]
		if first, dup := im.templateIdx[t.Name]; dup {
			return &Error{Path: fmt.Sprintf("attributeTemplates[%d].name", i), Line: lines[i],
				Msg: fmt.Sprintf("duplicate template %q (also attributeTemplates[%d])", t.Name, first)}
		}
		im.templateIdx[t.Name] = i
	}
	for _, t := range templates {
		row := store.ImportTemplateRow{Name: t.Name, Active: active(t.Active)}
		for _, o := range t.Options {
			row.Options = append(row.Options, store.ImportOptionRow{
				Attribute: o.Attribute, Unit: deref(o.Unit), DataType: deref(o.DataType), Priority: o.Priority,
				ShowOnWebsite: o.ShowOnWebsite, IsSearchable: o.IsSearchable,
			})
		}
		before := -1
		if stored, ok := im.state.Templates[t.Name]; ok {
			before = len(stored.Options)
		}
		if err := im.s.UpsertImportTemplate(im.org, im.state, row, im.now); err != nil {
			return err
		}
		if len(im.state.Templates[t.Name].Options) != before {
			im.grown[t.Name] = true
		}
		im.res.Templates++
		im.res.Options += len(t.Options)
	}
	im.templatesRead = true
	return nil
}

// addProduct checks a product (already valid on its own) against the file
// so far, upserts its brand and queues it for writing.
func (im *importer) addProduct(item decoded) error {
	p, i, line := &item.p, item.index, item.line
	path := fmt.Sprintf("products[%d]", i)
	if first, dup := im.skus[p.SKU]; dup {
		return &Error{Path: path + ".sku", Line: line, Msg: fmt.Sprintf("duplicate SKU %q (also products[%d], line %d)", p.SKU, first.index, first.line)}
	}
	if p.ExternalID != "" {
		if first, dup := im.exts[p.ExternalID]; dup {
			return &Error{Path: path + ".externalId", Line: line, Msg: fmt.Sprintf("duplicate externalId %q (also products[%d])", p.ExternalID, first)}
		}
		im.exts[p.ExternalID] = i
	}
	im.skus[p.SKU] = fileProduct{index: i, line: line, variant: p.VariantMaster != ""}
	if im.templatesRead && p.AttributeTemplate != "" && im.state.Templates[p.AttributeTemplate] == nil {
		return &Error{Path: path + ".attributeTemplate", Line: line, Msg: fmt.Sprintf("no template named %q", p.AttributeTemplate)}
	}

	pending := pendingProduct{decoded: item}
	if b := p.Brand; b != nil {
		id, err := im.s.UpsertImportBrand(im.org, im.state, b.Name, b.Website, b.Slug, im.now)
		if err != nil {
			return err
		}
		pending.brand = id
		if !im.brands[b.Name] {
			im.brands[b.Name] = true
			im.res.Brands++
		}
	}
	im.batch = append(im.batch, pending)
	if len(im.batch) >= batchSize {
		return im.flush()
	}
	return nil
}

// flush matches the queued products with stored ones, numbers the new
// ones and writes them all.
func (im *importer) flush() error {
	if len(im.batch) == 0 {
		return nil
	}
	ids := make([]int64, len(im.batch))
	fresh := 0
	for k, q := range im.batch {
		id := im.match(&q.p)
		if id == 0 {
			fresh++
			continue
		}
		if other, dup := im.targets[id]; dup {
			return &Error{Path: fmt.Sprintf("products[%d]", q.index), Line: q.line,
				Msg: fmt.Sprintf("matches the same stored product (id %d) as products[%d]", id, other.index)}
		}
		im.targets[id] = fileProduct{id: id, index: q.index, line: q.line, variant: q.p.VariantMaster != ""}
		ids[k] = id
	}
	next := int64(0)
	if fresh > 0 {
		first, err := im.s.ReserveImportIDs("products", fresh)
		if err != nil {
			return err
		}
		next = first
	}

	rows := make([]store.ImportProductRow, len(im.batch))
	for k, q := range im.batch {
		stored := ids[k] != 0
		if stored {
			im.res.ProductsUpdated++
		} else {
			ids[k], next = next, next+1
			im.res.ProductsCreated++
		}
		fp := im.skus[q.p.SKU]
		fp.id = ids[k]
		im.skus[q.p.SKU] = fp
		rows[k] = im.row(q, ids[k])
		rows[k].Stored = stored
	}
	im.batch = im.batch[:0]
	return im.writer.Write(rows)
}

// match finds the stored product a file product updates: by externalId, or
// by SKU when it has none. A product with a new externalId adopts the
// stored product of its SKU if that one has no externalId yet. 0: none.
func (im *importer) match(p *Product) int64 {
	if p.ExternalID != "" {
		if id, ok := im.state.ByExternalID[p.ExternalID]; ok {
			return id
		}
		if sp, ok := im.state.BySKU[p.SKU]; ok && !sp.HasExternalID {
			return sp.ID
		}
		return 0
	}
	return im.state.BySKU[p.SKU].ID
}

// row renders a queued product as the row to write and notes its template
// and variant master for the checks at the end.
func (im *importer) row(q pendingProduct, id int64) store.ImportProductRow {
	p := &q.p
	row := store.ImportProductRow{
		ID: id, SKU: p.SKU, ExternalID: p.ExternalID, GTIN: p.GTIN, Name: p.Name, Slug: p.Slug,
		Desc: p.Description, Active: active(p.Active), Brand: q.brand,
	}

	var options map[string]int64
	if name := p.AttributeTemplate; name != "" {
		if t := im.state.Templates[name]; t != nil {
			row.Template, options = t.ID, t.Options
		}
		if !im.templatesRead {
			im.early = append(im.early, earlyProduct{id: id, index: q.index, line: q.line, template: name})
		}
	}

	if master := p.VariantMaster; master != "" {
		link := variantLink{id: id, index: q.index, line: q.line, master: master}
		if fp, ok := im.skus[master]; ok && fp.id != 0 {
			row.VariantMaster, link.set = fp.id, true
		}
		im.links = append(im.links, link)
	}

	row.Attributes = attributesJSON(p.Attributes, options)
	row.Categories, row.Images, row.Files = q.categories, q.images, q.files
	row.VariantAttributes = q.variantAttributes
	return row
}

// attributesJSON renders attributes as stored (enrichment.StoredAttribute),
// giving each one named like one of options that option's id. note:
// written by hand, it is the hottest JSON of an import.
func attributesJSON(attrs []Attribute, options map[string]int64) string {
	b := make([]byte, 0, 64*len(attrs)+2)
	b = append(b, '[')
	for i, a := range attrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"attribute":`...)
		b, _ = jsontext.AppendQuote(b, a.Attribute)
		b = append(b, `,"detail":`...)
		b, _ = jsontext.AppendQuote(b, a.Detail)
		if id := options[a.Attribute]; id != 0 {
			b = append(b, `,"optionId":`...)
			b = strconv.AppendInt(b, id, 10)
		}
		b = append(b, '}')
	}
	return string(append(b, ']'))
}

// jsonText marshals a JSON field's value; nil slices become [].
func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if len(b) > maxJSON {
		return "", fmt.Errorf("larger than %d bytes of JSON", maxJSON)
	}
	return string(b), nil
}
