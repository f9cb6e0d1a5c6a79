package catalog

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
)

// batchSize products are matched, numbered, compared and written together.
const batchSize = 500

// importer holds one import's state. It keeps no product of the file
// beyond the current batch: the stored products a batch names are looked
// up when it is written, and what must span the whole file is one small
// entry per product written (seen), plus the few checks that only the end
// of the file can settle.
type importer struct {
	s      *store.Store
	tables *tables // the import's own queries
	org    enrichment.Org
	now    string
	opts   Options
	state  *ImportState
	res    Result

	templatesRead bool            // the file's templates are written: products link at once
	templateIdx   map[string]int  // the file's template names → index
	grown         map[string]bool // templates the file created or gave new options
	brands        map[string]bool // brand names seen in the file

	// seen holds the products of the file written so far (or found
	// unchanged), by id: their rows carry the file's SKU and externalId
	// from then on, so a later product's keys are checked against the
	// stored rows, and seen tells the file's own rows from the others.
	seen    map[int64]fileProduct
	shared  map[string]bool // SKUs that a product of the file shares with another product
	claims  []skuClaim      // products given the SKU of a stored product the file had not updated yet
	links   []variantLink   // variants whose master was not certain when written
	masters []masterClaim   // products made variants while stored variants named them as master
	early   []earlyProduct  // products with a template, read before the templates
	batch   []decoded
	writer  *ImportProductWriter
	buf     []byte // digest scratch space

	// the slot options of the templates written so far, by id: the gaps
	// of each product written (measure)
	slots map[string][]enrichment.SlotOption
	attrs []enrichment.StoredAttribute // scratch space for measure

	enriched bool         // the organization has accepted values on record
	written  *writtenKeys // a first import's keys (nil when the organization had products)
	accepted acceptedChanges

	read      fileRead // up to the chunk being written
	slugIndex string   // the slug index's statement while the import defers it
	bar       *progress
}

// fileProduct is what the import remembers of each product of the file
// (12 bytes, plus its id as the key: about 50 bytes a product in the map).
type fileProduct struct {
	index, line   int32
	variant       bool
	hasExternalID bool
}

// outcome is what the import did with a product of the file.
type outcome uint8

const (
	created outcome = iota + 1
	updated
	unchanged
)

// variantLink is a variant whose master SKU named no product of the file
// for certain when it was written: written is the master its row got (0
// for none), checked and corrected at the end.
type variantLink struct {
	id          int64
	index, line int
	master      string // SKU
	written     int64
	linked      digest  // the row's linked digest, to hash it with another master
	shopify     *string // and the Shopify columns it remembers
	outcome     outcome
}

// skuClaim is a product of the file given the SKU of a stored product
// (owner) that it does not update and cannot share the SKU with: refused
// unless the file updates owner too.
type skuClaim struct {
	index, line int
	sku         string
	owner       int64
}

// masterClaim is a product of the file made a variant while a stored
// variant names it as master: refused unless the file updates that variant.
type masterClaim struct {
	index, line int
	variant     int64
	variantSKU  string
}

type earlyProduct struct {
	id          int64
	index, line int
	template    string
	outcome     outcome
}

// newImporter reads what an import into org needs of the stored catalog;
// bar shows its progress.
func newImporter(s *store.Store, t *tables, org enrichment.Org, opts Options, bar *progress) (*importer, error) {
	state, err := t.LoadImportState(org)
	if err != nil {
		return nil, err
	}
	enriched, err := s.Catalog().HasAcceptedValues(org)
	if err != nil {
		return nil, err
	}
	hasProducts, err := t.HasImportProducts(org)
	if err != nil {
		return nil, err
	}
	var written *writtenKeys
	if !hasProducts {
		written = newWrittenKeys()
	}
	stamp := opts.stamp()
	return &importer{
		s: s, tables: t, org: org, now: stamp, opts: opts, bar: bar, state: state, enriched: enriched, written: written,
		writer:      t.NewImportProductWriter(org, stamp),
		templateIdx: map[string]int{},
		grown:       map[string]bool{},
		slots:       map[string][]enrichment.SlotOption{},
		brands:      map[string]bool{},
		seen:        map[int64]fileProduct{},
		shared:      map[string]bool{},
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
		row := ImportTemplateRow{Name: t.Name, Active: active(t.Active)}
		for _, o := range t.Options {
			row.Options = append(row.Options, ImportOptionRow{
				Attribute: o.Attribute, Unit: deref(o.Unit), DataType: deref(o.DataType), Priority: o.Priority,
				ShowOnWebsite: o.ShowOnWebsite, IsSearchable: o.IsSearchable,
			})
		}
		before := -1
		if stored, ok := im.state.Templates[t.Name]; ok {
			before = len(stored.Options)
		}
		slotsChanged, err := im.tables.UpsertImportTemplate(im.org, im.state, row, im.now)
		if err != nil {
			return err
		}
		clear(im.slots)
		if slotsChanged {
			tid := store.FormatID(im.state.Templates[t.Name].ID)
			if err := im.s.Catalog().RefreshTemplateGaps(im.org, tid); err != nil {
				return err
			}
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

// addProduct upserts the brand of a product (already valid on its own)
// and queues it for writing; its keys are checked with its batch.
func (im *importer) addProduct(item decoded) error {
	p := &item.p
	if b := p.Brand; b != nil {
		id, err := im.tables.UpsertImportBrand(im.org, im.state, b.Name, b.Website, b.Slug, im.now)
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

// count records what became of a product.
func (im *importer) count(out outcome) {
	switch out {
	case created:
		im.res.Created++
	case updated:
		im.res.Updated++
	case unchanged:
		im.res.Unchanged++
	}
}

// rewritten records that a product first found unchanged was written after
// all (a variant master or template link that the end of the file changed).
func (im *importer) rewritten(was outcome) {
	if was == unchanged {
		im.res.Unchanged--
		im.count(updated)
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
