package catalog

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
)

// batchSize products are matched, numbered, compared and written together.
const batchSize = 500

// importer holds one import's state. Besides the store's lookup maps it
// keeps only small per-product facts (SKU → id, variant links), never the
// products themselves beyond the current batch.
type importer struct {
	s     *store.Store
	org   enrichment.Org
	now   string
	opts  Options
	state *store.ImportState
	res   Result

	templatesRead bool            // the file's templates are written: products link at once
	templateIdx   map[string]int  // the file's template names → index
	grown         map[string]bool // templates the file created or gave new options
	brands        map[string]bool // brand names seen in the file

	skus    map[string]fileProduct // the file's SKUs, each with its first product
	exts    map[string]int         // the file's externalIds → product index
	targets map[int64]fileProduct  // stored products the file updates
	links   []variantLink          // every variant of the file
	early   []earlyProduct         // products with a template, read before the templates
	batch   []decoded
	writer  *store.ImportProductWriter
	buf     []byte // digest scratch space

	// created lists the products this import inserted: the change feed
	// hears of updates and deactivations from triggers, of inserts from the
	// import (store/changes.go)
	created  []int64
	accepted acceptedChanges
}

// fileProduct is what the import remembers of each product of the file.
type fileProduct struct {
	id            int64 // 0 until its batch is written
	index, line   int
	variant       bool
	hasExternalID bool
	shared        bool   // another product of the file has the same SKU
	sku           string // in targets only (im.skus has it as the key)
}

// outcome is what the import did with a product of the file.
type outcome uint8

const (
	created outcome = iota + 1
	updated
	unchanged
)

type variantLink struct {
	id          int64
	index, line int
	master      string // SKU
	written     int64  // the master the row was written (or found) with, 0 for none
	linked      digest // the row's linked digest, to hash it with another master
	outcome     outcome
}

type earlyProduct struct {
	id          int64
	index, line int
	template    string
	outcome     outcome
}

func newImporter(s *store.Store, org enrichment.Org, opts Options) (*importer, error) {
	state, err := s.LoadImportState(org)
	if err != nil {
		return nil, err
	}
	stamp := now()
	return &importer{
		s: s, org: org, now: stamp, opts: opts, state: state,
		writer:      s.NewImportProductWriter(org, stamp),
		templateIdx: map[string]int{},
		grown:       map[string]bool{},
		brands:      map[string]bool{},
		skus:        make(map[string]fileProduct, len(state.Products)), // a feed usually holds the catalog
		exts:        make(map[string]int, len(state.Products)),
		targets:     make(map[int64]fileProduct, len(state.Products)),
		accepted:    acceptedChanges{overwritten: map[int64][]string{}},
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
	if p.ExternalID != "" {
		if first, dup := im.exts[p.ExternalID]; dup {
			return &Error{Path: fieldPath(i, "externalId"), Line: line, Msg: fmt.Sprintf("duplicate externalId %q (also products[%d])", p.ExternalID, first)}
		}
		im.exts[p.ExternalID] = i
	}
	if first, dup := im.skus[p.SKU]; dup {
		// a SKU may be shared, but only by products the upsert can tell apart
		const why = "products may share a SKU only when each has its own externalId"
		switch {
		case p.ExternalID == "":
			return &Error{Path: fieldPath(i, "sku"), Line: line,
				Msg: fmt.Sprintf("duplicate SKU %q (also products[%d], line %d): %s", p.SKU, first.index, first.line, why)}
		case !first.hasExternalID:
			return &Error{Path: fieldPath(first.index, "sku"), Line: first.line,
				Msg: fmt.Sprintf("duplicate SKU %q (also products[%d], line %d): %s", p.SKU, i, line, why)}
		}
		first.shared = true
		im.skus[p.SKU] = first
	} else {
		im.skus[p.SKU] = fileProduct{index: i, line: line, variant: p.VariantMaster != "", hasExternalID: p.ExternalID != ""}
	}
	if im.templatesRead && p.AttributeTemplate != "" && im.state.Templates[p.AttributeTemplate] == nil {
		return &Error{Path: fieldPath(i, "attributeTemplate"), Line: line, Msg: fmt.Sprintf("no template named %q", p.AttributeTemplate)}
	}

	if b := p.Brand; b != nil {
		id, err := im.s.UpsertImportBrand(im.org, im.state, b.Name, b.Website, b.Slug, im.now)
		if err != nil {
			return err
		}
		item.row.Brand = id
		if !im.brands[b.Name] {
			im.brands[b.Name] = true
			im.res.Brands++
		}
	}
	im.batch = append(im.batch, item)
	if len(im.batch) >= batchSize {
		return im.flush()
	}
	return nil
}

// match finds the stored product a file product updates: by externalId, or
// by SKU when it has none. A product with a new externalId adopts the
// stored product of its SKU if that is the only one and has no externalId
// yet. nil: none.
func (im *importer) match(item *decoded) (*store.StoredProduct, error) {
	p := &item.p
	bySKU := im.state.BySKU[p.SKU]
	if p.ExternalID != "" {
		if sp := im.state.ByExternalID[p.ExternalID]; sp != nil {
			return sp, nil
		}
		if len(bySKU) == 1 && bySKU[0].ExternalID == "" {
			return bySKU[0], nil
		}
		return nil, nil
	}
	switch len(bySKU) {
	case 0:
		return nil, nil
	case 1:
		return bySKU[0], nil
	}
	return nil, &Error{Path: fmt.Sprintf("products[%d].externalId", item.index), Line: item.line,
		Msg: fmt.Sprintf("required: %d stored products share SKU %q, and only an externalId says which one this is", len(bySKU), p.SKU)}
}

// row completes the row of a queued product: its id, template (the
// attributes link to its options) and variant master (as far as known).
func (im *importer) row(q *decoded, id int64, stored *store.StoredProduct) {
	p, row := &q.p, &q.row
	row.ID, row.Stored = id, stored != nil
	if stored != nil && row.ExternalID == "" {
		row.ExternalID = stored.ExternalID // what the update keeps
	}
	if t := im.state.Templates[p.AttributeTemplate]; t != nil && p.AttributeTemplate != "" {
		row.Template, q.options = t.ID, t.Options
	}
	if p.VariantMaster != "" {
		row.VariantMaster = im.predictMaster(p.VariantMaster)
	}
}

// predictMaster is the id SKU will most likely name as a variant master
// once the whole file is read: a product of the file read so far, else the
// stored product of that SKU; 0 when unknown. linkVariants checks it at the
// end, and corrects the rows it got wrong.
func (im *importer) predictMaster(sku string) int64 {
	if fp, ok := im.skus[sku]; ok {
		if fp.shared {
			return 0
		}
		return fp.id
	}
	if stored := im.state.BySKU[sku]; len(stored) == 1 {
		if _, updated := im.targets[stored[0].ID]; !updated { // else its SKU is no longer sku
			return stored[0].ID
		}
	}
	return 0
}

// flush matches the queued products with stored ones, numbers the new
// ones, applies the accepted values on record, and writes the products
// that differ from what is stored.
func (im *importer) flush() error {
	if len(im.batch) == 0 {
		return nil
	}
	stored := make([]*store.StoredProduct, len(im.batch))
	fresh := 0
	for k := range im.batch {
		q := &im.batch[k]
		sp, err := im.match(q)
		if err != nil {
			return err
		}
		if sp == nil {
			fresh++
			continue
		}
		if other, dup := im.targets[sp.ID]; dup {
			return &Error{Path: fmt.Sprintf("products[%d]", q.index), Line: q.line,
				Msg: fmt.Sprintf("matches the same stored product (id %d) as products[%d]", sp.ID, other.index)}
		}
		im.targets[sp.ID] = fileProduct{id: sp.ID, index: q.index, line: q.line, variant: q.p.VariantMaster != "", sku: q.p.SKU}
		stored[k] = sp
	}
	next := int64(0)
	if fresh > 0 {
		first, err := im.s.ReserveImportIDs("products", fresh)
		if err != nil {
			return err
		}
		next = first
	}

	// every product's id first, so that a master anywhere in the batch is known
	ids := make([]int64, len(im.batch))
	for k := range im.batch {
		if sp := stored[k]; sp != nil {
			ids[k] = sp.ID
		} else {
			ids[k], next = next, next+1
		}
		if fp := im.skus[im.batch[k].p.SKU]; fp.index == im.batch[k].index {
			fp.id = ids[k]
			im.skus[im.batch[k].p.SKU] = fp
		}
	}
	var read, enriched []int64 // stored rows to read: to compare, or with accepted values
	for k := range im.batch {
		if sp := stored[k]; sp != nil {
			if sp.Hash == "" || im.state.Enriched[sp.ID] {
				read = append(read, sp.ID)
			}
			if im.state.Enriched[sp.ID] {
				enriched = append(enriched, sp.ID)
			}
		}
		im.row(&im.batch[k], ids[k], stored[k])
	}
	storedRows, err := im.s.ImportStoredRows(im.org, read)
	if err != nil {
		return err
	}
	accepted, err := im.s.AcceptedValues(im.org, enriched)
	if err != nil {
		return err
	}

	write := make([]store.ImportProductRow, 0, len(im.batch))
	for k := range im.batch {
		q, sp := &im.batch[k], stored[k]
		if values := accepted[q.row.ID]; len(values) > 0 {
			if im.keepAccepted(q, storedRows[q.row.ID], values) {
				im.res.KeptEnriched++
			}
		}
		var linked digest
		linked, im.buf = linkedDigest(im.buf, q.content, &q.row, q.attrs, q.p.Attributes, q.options)
		q.row.Hash = importHash(linked, q.row.VariantMaster)

		out := updated
		switch {
		case sp == nil:
			out = created
		case sp.Hash == q.row.Hash:
			out = unchanged
		case sp.Hash == "" && storedHash(storedRows[sp.ID]) == q.row.Hash:
			out = unchanged
			if err := im.writer.SetHash(sp.ID, q.p.SKU, q.row.Hash); err != nil {
				return err
			}
		}
		im.count(q.row.ID, out)
		if out != unchanged {
			q.row.Attributes = q.attributesJSON()
			write = append(write, q.row)
		}
		if q.p.VariantMaster != "" {
			im.links = append(im.links, variantLink{id: q.row.ID, index: q.index, line: q.line, master: q.p.VariantMaster,
				written: q.row.VariantMaster, linked: linked, outcome: out})
		}
		if q.p.AttributeTemplate != "" && !im.templatesRead {
			im.early = append(im.early, earlyProduct{id: q.row.ID, index: q.index, line: q.line, template: q.p.AttributeTemplate, outcome: out})
		}
	}
	im.batch = im.batch[:0]
	return im.writer.Write(write)
}

// count records what became of product id.
func (im *importer) count(id int64, out outcome) {
	switch out {
	case created:
		im.res.Created++
		im.created = append(im.created, id)
	case updated:
		im.res.Updated++
	case unchanged:
		im.res.Unchanged++
	}
}

// rewritten records that a product first found unchanged was written after
// all (a variant master or template link that the end of the file changed).
func (im *importer) rewritten(id int64, was outcome) {
	if was == unchanged {
		im.res.Unchanged--
		im.count(id, updated)
	}
}

// jsonText renders a JSON field's strings as stored (nil is []).
func jsonText(v []string) (string, error) {
	text, err := store.StringsJSON(v)
	if err == nil && len(text) > maxJSON {
		err = fmt.Errorf("larger than %d bytes of JSON", maxJSON)
	}
	return text, err
}
