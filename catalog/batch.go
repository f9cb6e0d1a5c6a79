package catalog

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/store"
)

// batchKeys is what a batch knows while it is placed: the stored rows its
// keys name (as they are before the batch is written), and its own
// products by key and the stored products they update, so far.
type batchKeys struct {
	bySKU   map[string][]*store.StoredProduct // lowest id first
	byExt   map[string][]*store.StoredProduct // lowest id first
	skus    map[string][]int                  // SKU → the batch's products with it
	exts    map[string]int                    // externalId → the batch's product with it
	targets map[int64]int                     // stored product → the batch's product that updates it
}

// lookUp finds the stored rows that the batch's SKUs, variant masters and
// externalIds name, in one query.
func (im *importer) lookUp() (*batchKeys, error) {
	var skus, exts []string
	for k := range im.batch {
		p := &im.batch[k].p
		skus = append(skus, p.SKU)
		if p.VariantMaster != "" {
			skus = append(skus, p.VariantMaster)
		}
		if p.ExternalID != "" {
			exts = append(exts, p.ExternalID)
		}
	}
	rows, err := im.s.ImportProductsByKeys(im.org, skus, exts)
	if err != nil {
		return nil, err
	}
	b := &batchKeys{bySKU: map[string][]*store.StoredProduct{}, byExt: map[string][]*store.StoredProduct{},
		skus: map[string][]int{}, exts: map[string]int{}, targets: map[int64]int{}}
	for i := range rows {
		r := &rows[i]
		b.bySKU[r.SKU] = append(b.bySKU[r.SKU], r)
		if r.ExternalID != "" {
			b.byExt[r.ExternalID] = append(b.byExt[r.ExternalID], r)
		}
	}
	return b, nil
}

// place checks product k of the batch against the file so far and the
// stored products, and finds the stored product it updates (nil: none).
func (im *importer) place(b *batchKeys, k int) (*store.StoredProduct, error) {
	q := &im.batch[k]
	p, i, line := &q.p, q.index, q.line
	var byExt *store.StoredProduct
	if ext := p.ExternalID; ext != "" {
		if first, dup := b.exts[ext]; dup {
			return nil, duplicateExternalID(i, line, ext, im.batch[first].index)
		}
		for _, r := range b.byExt[ext] {
			if fp, ok := im.seen[r.ID]; ok && fp.hasExternalID {
				return nil, duplicateExternalID(i, line, ext, int(fp.index))
			}
		}
		if rows := b.byExt[ext]; len(rows) > 0 {
			byExt = rows[0]
		}
		b.exts[ext] = k
	}

	// the file's products that have the SKU: written before this batch
	// (their rows), or earlier in it
	first, inFile := im.firstHolder(b, p.SKU)
	if inFile {
		// a SKU may be shared, but only by products the upsert can tell apart
		const why = "products may share a SKU only when each has its own externalId"
		switch {
		case p.ExternalID == "":
			return nil, &Error{Path: fieldPath(i, "sku"), Line: line,
				Msg: fmt.Sprintf("duplicate SKU %q (also products[%d], line %d): %s", p.SKU, first.index, first.line, why)}
		case !first.hasExternalID:
			return nil, &Error{Path: fieldPath(int(first.index), "sku"), Line: int(first.line),
				Msg: fmt.Sprintf("duplicate SKU %q (also products[%d], line %d): %s", p.SKU, i, line, why)}
		}
		im.shared[p.SKU] = true
	}
	b.skus[p.SKU] = append(b.skus[p.SKU], k)
	if im.templatesRead && p.AttributeTemplate != "" && im.state.Templates[p.AttributeTemplate] == nil {
		return nil, &Error{Path: fieldPath(i, "attributeTemplate"), Line: line, Msg: fmt.Sprintf("no template named %q", p.AttributeTemplate)}
	}

	// match: by externalId, or by SKU when it has none; a product with a new
	// externalId adopts the stored product of its SKU if that is the only
	// one and has no externalId yet
	stored := im.storedHolders(b, p.SKU, false)
	var sp *store.StoredProduct
	switch {
	case byExt != nil:
		sp = byExt
	case p.ExternalID != "":
		if len(stored) == 1 && stored[0].ExternalID == "" {
			sp = stored[0]
		}
	case len(stored) == 1:
		sp = stored[0]
	case len(stored) > 1:
		return nil, &Error{Path: fieldPath(i, "externalId"), Line: line,
			Msg: fmt.Sprintf("required: %d stored products share SKU %q, and only an externalId says which one this is", len(stored), p.SKU)}
	}
	if sp != nil {
		other, dup := b.targets[sp.ID]
		if fp, ok := im.seen[sp.ID]; ok {
			other, dup = int(fp.index), true
		} else if dup {
			other = im.batch[other].index
		}
		if dup {
			return nil, &Error{Path: fmt.Sprintf("products[%d]", i), Line: line,
				Msg: fmt.Sprintf("matches the same stored product (id %d) as products[%d]", sp.ID, other)}
		}
		b.targets[sp.ID] = k
	}

	// the stored products that keep the SKU: shared if both have an
	// externalId, else refused at the end unless the file updates them
	for _, h := range stored {
		switch _, updated := b.targets[h.ID]; {
		case h == sp || updated:
		case p.ExternalID != "" && h.ExternalID != "":
			im.shared[p.SKU] = true
		default:
			im.claims = append(im.claims, skuClaim{index: i, line: line, sku: p.SKU, owner: h.ID})
		}
	}
	return sp, nil
}

func duplicateExternalID(i, line int, ext string, first int) error {
	return &Error{Path: fieldPath(i, "externalId"), Line: line, Msg: fmt.Sprintf("duplicate externalId %q (also products[%d])", ext, first)}
}

// firstHolder is the file's first product with sku so far: one written
// before the batch, else one earlier in the batch.
func (im *importer) firstHolder(b *batchKeys, sku string) (fileProduct, bool) {
	var first fileProduct
	found := false
	for _, r := range b.bySKU[sku] {
		if fp, ok := im.seen[r.ID]; ok && (!found || fp.index < first.index) {
			first, found = fp, true
		}
	}
	if ks := b.skus[sku]; !found && len(ks) > 0 {
		q := &im.batch[ks[0]]
		first, found = fileProduct{index: int32(q.index), line: int32(q.line), hasExternalID: q.p.ExternalID != ""}, true
	}
	return first, found
}

// storedHolders are the stored rows that have sku and are no product of the
// file written so far; untargeted leaves out those the batch updates.
func (im *importer) storedHolders(b *batchKeys, sku string, untargeted bool) []*store.StoredProduct {
	var out []*store.StoredProduct
	for _, r := range b.bySKU[sku] {
		if _, ok := im.seen[r.ID]; ok {
			continue
		}
		if _, updated := b.targets[r.ID]; untargeted && updated {
			continue
		}
		out = append(out, r)
	}
	return out
}

// master links variant k of the batch (ids: the batch's ids) to the product
// its master SKU names, when the file already settles it: the only product
// with that SKU is one of the file (the file's products are final), or
// several of the file have it (refused). Otherwise it returns its best
// guess, and certain false: linkVariants checks it at the end.
func (im *importer) master(b *batchKeys, k int, ids []int64) (id int64, certain bool, err error) {
	q := &im.batch[k]
	sku := q.p.VariantMaster
	path := fieldPath(q.index, "variantMaster")
	var file []int64
	variant := false
	for _, r := range b.bySKU[sku] {
		if fp, ok := im.seen[r.ID]; ok {
			file, variant = append(file, r.ID), fp.variant
		}
	}
	for _, j := range b.skus[sku] {
		file, variant = append(file, ids[j]), im.batch[j].p.VariantMaster != ""
	}
	stored := im.storedHolders(b, sku, true)
	switch {
	case len(file) > 1:
		return 0, false, &Error{Path: path, Line: q.line,
			Msg: fmt.Sprintf("SKU %q is shared by several products, so it cannot name a variant master", sku)}
	case len(file) == 1 && len(stored) == 0:
		switch {
		case file[0] == ids[k]:
			return 0, false, &Error{Path: path, Line: q.line, Msg: "a product cannot be its own variant master"}
		case variant:
			return 0, false, &Error{Path: path, Line: q.line,
				Msg: fmt.Sprintf("product %q is itself a variant, so it cannot be a master", sku)}
		}
		return file[0], true, nil
	case len(file) == 1:
		return file[0], false, nil
	case len(stored) == 1:
		return stored[0].ID, false, nil
	}
	return 0, false, nil
}

// flush places the queued products, numbers the new ones, links the
// variants, applies the accepted values on record, and writes the products
// that differ from what is stored.
func (im *importer) flush() error {
	if len(im.batch) == 0 {
		return nil
	}
	b, err := im.lookUp()
	if err != nil {
		return err
	}
	stored := make([]*store.StoredProduct, len(im.batch))
	fresh := 0
	var matched []int64
	for k := range im.batch {
		sp, err := im.place(b, k)
		if err != nil {
			return err
		}
		if stored[k] = sp; sp == nil {
			fresh++
		} else {
			matched = append(matched, sp.ID)
		}
	}
	next := int64(0)
	if fresh > 0 {
		if next, err = im.s.ReserveImportIDs("products", fresh); err != nil {
			return err
		}
	}
	// every product's id first, so that a master anywhere in the batch is known
	ids := make([]int64, len(im.batch))
	for k := range im.batch {
		if sp := stored[k]; sp != nil {
			ids[k] = sp.ID
		} else {
			ids[k], next = next, next+1
		}
	}
	if err := im.claimMasters(b, stored); err != nil {
		return err
	}

	var accepted map[int64][]store.AcceptedValue
	if im.enriched {
		if accepted, err = im.s.AcceptedValues(im.org, matched); err != nil {
			return err
		}
	}
	var read []int64 // stored rows to read: to compare, or with accepted values
	for _, sp := range stored {
		if sp != nil && (sp.Hash == "" || len(accepted[sp.ID]) > 0) {
			read = append(read, sp.ID)
		}
	}
	storedRows, err := im.s.ImportStoredRows(im.org, read)
	if err != nil {
		return err
	}

	write := make([]store.ImportProductRow, 0, len(im.batch))
	var inserted []int64
	for k := range im.batch {
		q, sp := &im.batch[k], stored[k]
		im.row(q, ids[k], sp)
		var master int64
		certain := true
		if q.p.VariantMaster != "" {
			if master, certain, err = im.master(b, k, ids); err != nil {
				return err
			}
		}
		q.row.VariantMaster = master
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
			inserted = append(inserted, q.row.ID)
		case sp.Hash == q.row.Hash:
			out = unchanged
		case sp.Hash == "" && storedHash(storedRows[sp.ID]) == q.row.Hash:
			out = unchanged
			if err := im.writer.SetHash(sp.ID, q.p.SKU, q.row.Hash); err != nil {
				return err
			}
		}
		im.count(out)
		if out != unchanged {
			q.row.Attributes = q.attributesJSON()
			write = append(write, q.row)
		}
		if !certain {
			im.links = append(im.links, variantLink{id: q.row.ID, index: q.index, line: q.line, master: q.p.VariantMaster,
				written: master, linked: linked, outcome: out})
		}
		if q.p.AttributeTemplate != "" && !im.templatesRead {
			im.early = append(im.early, earlyProduct{id: q.row.ID, index: q.index, line: q.line, template: q.p.AttributeTemplate, outcome: out})
		}
	}
	if err := im.writer.Write(write); err != nil {
		return err
	}
	// note: no trigger sees product inserts (store/changes.go); their rows
	// are read back while still in the page cache
	if err := im.s.RecordUpserts(im.org, inserted); err != nil {
		return err
	}
	for k := range im.batch {
		q := &im.batch[k]
		im.seen[ids[k]] = fileProduct{index: int32(q.index), line: int32(q.line),
			variant: q.p.VariantMaster != "", hasExternalID: q.p.ExternalID != ""}
	}
	im.batch = im.batch[:0]
	return nil
}

// claimMasters notes the stored products that the batch makes variants
// while stored variants name them as master: refused at the end unless the
// file updates those variants too.
func (im *importer) claimMasters(b *batchKeys, stored []*store.StoredProduct) error {
	var masters []int64
	at := map[int64]int{}
	for k, sp := range stored {
		if sp != nil && sp.Master == 0 && im.batch[k].p.VariantMaster != "" {
			masters = append(masters, sp.ID)
			at[sp.ID] = k
		}
	}
	if len(masters) == 0 {
		return nil
	}
	variants, err := im.s.ImportVariantsOf(im.org, masters)
	if err != nil {
		return err
	}
	for _, v := range variants {
		_, inFile := im.seen[v.ID]
		if _, updated := b.targets[v.ID]; inFile || updated {
			continue
		}
		q := &im.batch[at[v.Master]]
		im.masters = append(im.masters, masterClaim{index: q.index, line: q.line, variant: v.ID, variantSKU: v.SKU})
	}
	return nil
}

// row completes the row of a queued product: its id and template (the
// attributes link to its options).
func (im *importer) row(q *decoded, id int64, stored *store.StoredProduct) {
	p, row := &q.p, &q.row
	row.ID, row.Stored = id, stored != nil
	if stored != nil && row.ExternalID == "" {
		row.ExternalID = stored.ExternalID // what the update keeps
	}
	if t := im.state.Templates[p.AttributeTemplate]; t != nil && p.AttributeTemplate != "" {
		row.Template, q.options = t.ID, t.Options
	}
}
