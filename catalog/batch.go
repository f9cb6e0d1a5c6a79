package catalog

import (
	"fmt"
)

// batchKeys is what a batch knows while it is placed: the stored rows its
// keys name (as they are before the batch is written), and its own
// products by key and the stored products they update, so far.
type batchKeys struct {
	bySKU   map[string][]*StoredProduct // lowest id first
	byExt   map[string][]*StoredProduct // lowest id first
	skus    map[string][]int            // SKU → the batch's products with it
	exts    map[string]int              // externalId → the batch's product with it
	targets map[int64]int               // stored product → the batch's product that updates it
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
	rows, err := im.storedByKeys(skus, exts)
	if err != nil {
		return nil, err
	}
	b := &batchKeys{bySKU: map[string][]*StoredProduct{}, byExt: map[string][]*StoredProduct{},
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
func (im *importer) place(b *batchKeys, k int) (*StoredProduct, error) {
	byExt, err := im.placeExternalID(b, k)
	if err != nil {
		return nil, err
	}
	if err := im.placeSKU(b, k); err != nil {
		return nil, err
	}
	if err := im.checkTemplate(k); err != nil {
		return nil, err
	}
	sp, stored, err := im.match(b, k, byExt)
	if err != nil {
		return nil, err
	}
	if err := im.target(b, k, sp); err != nil {
		return nil, err
	}
	im.noteOtherHolders(b, k, sp, stored)
	return sp, nil
}

// placeExternalID refuses product k's externalId when the file already
// had it, and returns the stored product that has it (nil: none).
func (im *importer) placeExternalID(b *batchKeys, k int) (*StoredProduct, error) {
	q := &im.batch[k]
	ext := q.p.ExternalID
	if ext == "" {
		return nil, nil
	}
	if first, dup := b.exts[ext]; dup {
		return nil, duplicateExternalID(q.index, q.line, ext, im.batch[first].index, im.batch[first].line)
	}
	for _, r := range b.byExt[ext] {
		if fp, ok := im.seen[r.ID]; ok && fp.hasExternalID {
			return nil, duplicateExternalID(q.index, q.line, ext, int(fp.index), int(fp.line))
		}
	}
	b.exts[ext] = k
	if rows := b.byExt[ext]; len(rows) > 0 {
		return rows[0], nil
	}
	return nil, nil
}

// placeSKU checks product k's SKU against the file's products that have
// it, written before this batch (their rows) or earlier in it: a SKU may
// be shared, but only by products the upsert can tell apart.
func (im *importer) placeSKU(b *batchKeys, k int) error {
	q := &im.batch[k]
	p, i, line := &q.p, q.index, q.line
	if first, inFile := im.firstHolder(b, p.SKU); inFile {
		const why = "products may share a SKU only when each has its own externalId"
		switch {
		case p.ExternalID == "":
			return &Error{Path: fieldPath(i, "sku"), Line: line,
				Msg: fmt.Sprintf("duplicate SKU %q (also products[%d], line %d): %s", p.SKU, first.index, first.line, why)}
		case !first.hasExternalID:
			return &Error{Path: fieldPath(int(first.index), "sku"), Line: int(first.line),
				Msg: fmt.Sprintf("duplicate SKU %q (also products[%d], line %d): %s", p.SKU, i, line, why)}
		}
		im.shared[p.SKU] = true
	}
	b.skus[p.SKU] = append(b.skus[p.SKU], k)
	return nil
}

// checkTemplate refuses product k's template when the file's templates
// have been read and none has its name.
func (im *importer) checkTemplate(k int) error {
	q := &im.batch[k]
	if name := q.p.AttributeTemplate; im.templatesRead && name != "" && im.state.Templates[name] == nil {
		return &Error{Path: fieldPath(q.index, "attributeTemplate"), Line: q.line, Msg: fmt.Sprintf("no template named %q", name)}
	}
	return nil
}

// match finds the stored product that product k updates: by externalId
// (byExt), or by SKU when it has none; a product with a new externalId
// adopts the stored product of its SKU if that is the only one and has no
// externalId yet. It also returns the stored products with k's SKU.
func (im *importer) match(b *batchKeys, k int, byExt *StoredProduct) (sp *StoredProduct, stored []*StoredProduct, err error) {
	q := &im.batch[k]
	stored = im.storedHolders(b, q.p.SKU, false)
	switch {
	case byExt != nil:
		sp = byExt
	case q.p.ExternalID != "":
		if len(stored) == 1 && stored[0].ExternalID == "" {
			sp = stored[0]
		}
	case len(stored) == 1:
		sp = stored[0]
	case len(stored) > 1:
		return nil, nil, &Error{Path: fieldPath(q.index, "externalId"), Line: q.line,
			Msg: fmt.Sprintf("required: %d stored products share SKU %q, and only an externalId says which one this is", len(stored), q.p.SKU)}
	}
	return sp, stored, nil
}

// target records that product k updates sp, refused when another product
// of the file updates it already.
func (im *importer) target(b *batchKeys, k int, sp *StoredProduct) error {
	if sp == nil {
		return nil
	}
	other, dup := b.targets[sp.ID]
	if fp, ok := im.seen[sp.ID]; ok {
		other, dup = int(fp.index), true
	} else if dup {
		other = im.batch[other].index
	}
	if dup {
		q := &im.batch[k]
		return &Error{Path: fmt.Sprintf("products[%d]", q.index), Line: q.line,
			Msg: fmt.Sprintf("matches the same stored product (id %d) as products[%d]", sp.ID, other)}
	}
	b.targets[sp.ID] = k
	return nil
}

// noteOtherHolders goes through the stored products that keep product k's
// SKU (all of stored but sp and those the batch updates): shared if both
// have an externalId, else claimed, and refused at the end unless the file
// updates them.
func (im *importer) noteOtherHolders(b *batchKeys, k int, sp *StoredProduct, stored []*StoredProduct) {
	q := &im.batch[k]
	for _, h := range stored {
		switch _, updated := b.targets[h.ID]; {
		case h == sp || updated:
		case q.p.ExternalID != "" && h.ExternalID != "":
			im.shared[q.p.SKU] = true
		default:
			im.claims = append(im.claims, skuClaim{index: q.index, line: q.line, sku: q.p.SKU, owner: h.ID})
		}
	}
}

func duplicateExternalID(i, line int, ext string, first, firstLine int) error {
	return &Error{Path: fieldPath(i, "externalId"), Line: line, Msg: fmt.Sprintf("duplicate externalId %q (also products[%d], line %d)", ext, first, firstLine)}
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
func (im *importer) storedHolders(b *batchKeys, sku string, untargeted bool) []*StoredProduct {
	var out []*StoredProduct
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

// claimMasters notes the stored products that the batch makes variants
// while stored variants name them as master: refused at the end unless the
// file updates those variants too.
func (im *importer) claimMasters(b *batchKeys, stored []*StoredProduct) error {
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
	variants, err := im.tables.ImportVariantsOf(im.org, masters)
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
func (im *importer) row(q *decoded, id int64, stored *StoredProduct) {
	p, row := &q.p, &q.row
	row.ID, row.Stored = id, stored != nil
	if stored != nil && row.ExternalID == "" {
		row.ExternalID = stored.ExternalID // what the update keeps
	}
	if t := im.state.Templates[p.AttributeTemplate]; t != nil && p.AttributeTemplate != "" {
		row.Template, q.options = t.ID, t.Options
	}
}
