package catalog

import (
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
)

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
	stored, err := im.placeAll(b)
	if err != nil {
		return err
	}
	ids, err := im.number(stored)
	if err != nil {
		return err
	}
	if err := im.claimMasters(b, stored); err != nil {
		return err
	}
	known, err := im.readStored(stored)
	if err != nil {
		return err
	}
	var written []int
	for k := range im.batch {
		out, err := im.settle(b, k, ids, stored[k], known)
		if err != nil {
			return err
		}
		if out != unchanged {
			written = append(written, k)
		}
	}
	if err := im.measure(written); err != nil {
		return err
	}
	write := make([]ImportProductRow, len(written))
	for i, k := range written {
		write[i] = im.batch[k].row
	}
	if err := im.writeBatch(write, ids); err != nil {
		return err
	}
	return im.deferSlugIndex()
}

// measure sets the completeness and gaps of the batch's products at
// written, from the values decoded (not read back).
func (im *importer) measure(written []int) error {
	var missing []string
	for _, k := range written {
		t := optionalID(im.batch[k].row.Template)
		if _, ok := im.slots[t]; !ok && t != "" {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		// note: once per template of the import (readTemplates forgets them
		// when it changes one); a query per batch cost 5% of the import
		slots, err := im.s.Catalog().SlotOptionsOf(im.org, missing)
		if err != nil {
			return err
		}
		for _, t := range missing {
			im.slots[t] = slots[t]
		}
	}
	for _, k := range written {
		q := &im.batch[k]
		attrs := q.attrs
		if attrs == nil {
			// note: the file's attributes fill a slot by name
			im.attrs = im.attrs[:0]
			for _, a := range q.p.Attributes {
				im.attrs = append(im.attrs, enrichment.StoredAttribute{Attribute: a.Attribute, Detail: a.Detail})
			}
			attrs = im.attrs
		}
		values := enrichment.SlotValues{Description: q.row.Desc, Images: len(q.p.Images), Attributes: attrs}
		q.row.Gaps = store.StoredGaps(enrichment.CompletenessOf(values, im.slots[optionalID(q.row.Template)]))
	}
	return nil
}

// placeAll places every product of the batch: the stored product each
// updates, nil for the new ones.
func (im *importer) placeAll(b *batchKeys) ([]*StoredProduct, error) {
	stored := make([]*StoredProduct, len(im.batch))
	for k := range im.batch {
		sp, err := im.place(b, k)
		if err != nil {
			return nil, err
		}
		stored[k] = sp
	}
	return stored, nil
}

// number gives every product of the batch its id, before any is written,
// so that a master anywhere in the batch is known: a stored product keeps
// its own, the new ones get ids reserved in one go.
func (im *importer) number(stored []*StoredProduct) ([]int64, error) {
	fresh := 0
	for _, sp := range stored {
		if sp == nil {
			fresh++
		}
	}
	next := int64(0)
	if fresh > 0 {
		var err error
		if next, err = im.tables.ReserveImportIDs("products", fresh); err != nil {
			return nil, err
		}
	}
	ids := make([]int64, len(stored))
	for k, sp := range stored {
		if sp != nil {
			ids[k] = sp.ID
		} else {
			ids[k], next = next, next+1
		}
	}
	return ids, nil
}

// storedState is what a batch reads of the stored products it updates:
// the values accepted revisions set, and the rows to compare with (those
// without a digest) or to keep accepted values in.
type storedState struct {
	accepted map[int64][]store.AcceptedValue
	rows     map[int64]ImportProductRow
}

// readStored reads the storedState of the batch's stored products.
func (im *importer) readStored(stored []*StoredProduct) (storedState, error) {
	var st storedState
	if im.enriched {
		var matched []int64
		for _, sp := range stored {
			if sp != nil {
				matched = append(matched, sp.ID)
			}
		}
		var err error
		if st.accepted, err = im.s.Catalog().AcceptedValues(im.org, matched); err != nil {
			return storedState{}, err
		}
	}
	var read []int64
	for _, sp := range stored {
		if sp != nil && (sp.Hash == "" || len(st.accepted[sp.ID]) > 0) {
			read = append(read, sp.ID)
		}
	}
	rows, err := im.tables.ImportStoredRows(im.org, read)
	if err != nil {
		return storedState{}, err
	}
	st.rows = rows
	return st, nil
}

// settle completes the row of product k (ids: the batch's ids; sp: the
// stored product it updates), keeps the accepted values on record, and
// says whether it is created, updated or unchanged; the row is ready to
// write unless unchanged.
func (im *importer) settle(b *batchKeys, k int, ids []int64, sp *StoredProduct, known storedState) (outcome, error) {
	q := &im.batch[k]
	im.row(q, ids[k], sp)
	master, certain, err := im.linkMaster(b, k, ids)
	if err != nil {
		return 0, err
	}
	q.row.VariantMaster = master
	if values := known.accepted[q.row.ID]; len(values) > 0 {
		if im.keepAccepted(q, known.rows[q.row.ID], values) {
			im.res.KeptEnriched++
		}
	}
	var linked digest
	linked, im.buf = linkedDigest(im.buf, q.content, &q.row, q.attrs, q.p.Attributes, q.options)
	q.row.Hash = rowHash(linked, q.row.VariantMaster, q.row.Shopify)

	out, err := im.compare(q, sp, known)
	if err != nil {
		return 0, err
	}
	im.count(out)
	if out != unchanged {
		q.row.Attributes = q.attributesJSON()
	}
	im.deferChecks(q, out, master, certain, linked)
	return out, nil
}

// linkMaster is the id of product k's variant master (0: none) and whether
// the file already settles it (see master).
func (im *importer) linkMaster(b *batchKeys, k int, ids []int64) (int64, bool, error) {
	if im.batch[k].p.VariantMaster == "" {
		return 0, true, nil
	}
	return im.master(b, k, ids)
}

// compare says what the import does to q, a row with its digest: create
// it (no stored product), leave it (the stored digest, or the stored row
// when it has none, is the same; a missing digest is then written), or
// update it.
func (im *importer) compare(q *decoded, sp *StoredProduct, known storedState) (outcome, error) {
	switch {
	case sp == nil:
		return created, nil
	case sp.Hash != "" && sameHash(sp.Hash, q.row.Hash, q.row.Shopify != nil):
		return unchanged, nil
	case sp.Hash == "" && sameHash(storedHash(known.rows[sp.ID]), q.row.Hash, q.row.Shopify != nil):
		if err := im.writer.SetHash(sp.ID, q.p.SKU, q.row.Hash); err != nil {
			return 0, err
		}
		return unchanged, nil
	}
	return updated, nil
}

// deferChecks notes what only the end of the file settles about q: a
// variant master the file has not settled (certain false), and a template
// named before the file's templates were read.
func (im *importer) deferChecks(q *decoded, out outcome, master int64, certain bool, linked digest) {
	if !certain {
		im.links = append(im.links, variantLink{id: q.row.ID, index: q.index, line: q.line, master: q.p.VariantMaster,
			written: master, linked: linked, shopify: q.row.Shopify, outcome: out})
	}
	if q.p.AttributeTemplate != "" && !im.templatesRead {
		im.early = append(im.early, earlyProduct{id: q.row.ID, index: q.index, line: q.line, template: q.p.AttributeTemplate, outcome: out})
	}
}

// writeBatch writes the rows that differ, records the new ones in the
// change feed, remembers the batch's products as the file's, and empties
// the batch.
func (im *importer) writeBatch(write []ImportProductRow, ids []int64) error {
	// note: the writer records the new products in the change feed, which
	// no trigger sees
	if err := im.writer.Write(write); err != nil {
		return err
	}
	for k := range im.batch {
		q := &im.batch[k]
		im.seen[ids[k]] = fileProduct{index: int32(q.index), line: int32(q.line),
			variant: q.p.VariantMaster != "", hasExternalID: q.p.ExternalID != ""}
		if im.written != nil {
			im.written.add(q.row.SKU)
			im.written.add(q.row.ExternalID)
		}
	}
	im.batch = im.batch[:0]
	return nil
}
