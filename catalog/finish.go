package catalog

import (
	"fmt"
	"maps"
	"slices"
)

// finish writes the last batch, then checks and writes what needed the
// whole file: SKUs taken from stored products, variant masters, stored
// variants whose master changed, templates of products read before the
// templates, and the products the file lacks. The checks read the rows as
// the file left them.
func (im *importer) finish() error {
	if err := im.flush(); err != nil {
		return err
	}
	if err := im.checkClaims(); err != nil {
		return err
	}
	if err := im.linkVariants(); err != nil {
		return err
	}
	if err := im.checkStoredVariants(); err != nil {
		return err
	}
	if err := im.linkEarlyTemplates(); err != nil {
		return err
	}
	if im.opts.DeactivateMissing {
		if err := im.deactivateMissing(); err != nil {
			return err
		}
	}
	if err := im.writeAccepted(); err != nil {
		return err
	}
	return im.buildDeferredIndex()
}

// checkClaims refuses a file that gives a product the SKU of a stored
// product that the file does not update, unless both have an externalId,
// which tells them apart: then they share the SKU.
func (im *importer) checkClaims() error {
	for _, c := range im.claims { // in file order
		if _, updated := im.seen[c.owner]; !updated {
			return &Error{Path: fieldPath(c.index, "sku"), Line: c.line,
				Msg: fmt.Sprintf("SKU %q belongs to another stored product (id %d), which this file does not update and which has no externalId to tell the two apart", c.sku, c.owner)}
		}
	}
	return nil
}

// holders returns the products that have each of skus, as the file left
// them, by SKU.
func (im *importer) holders(skus []string) (map[string][]StoredProduct, error) {
	out := map[string][]StoredProduct{}
	for start := 0; start < len(skus); start += batchSize {
		rows, err := im.tables.ImportProductsByKeys(im.org, skus[start:min(start+batchSize, len(skus))], nil)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[r.SKU] = append(out[r.SKU], r)
		}
	}
	return out, nil
}

// isVariant says whether a product is a variant once the file is written.
func (im *importer) isVariant(p StoredProduct) bool {
	if fp, inFile := im.seen[p.ID]; inFile {
		return fp.variant // its row may not be linked yet
	}
	return p.Master != 0
}

// linkVariants resolves the master SKUs that were not certain when their
// variants were written, checks that masters are not variants themselves
// and that their SKU is not shared, and corrects the rows whose master was
// not known, or mispredicted, when written.
func (im *importer) linkVariants() error {
	var skus []string
	for _, l := range im.links {
		skus = append(skus, l.master)
	}
	slices.Sort(skus)
	holders, err := im.holders(slices.Compact(skus))
	if err != nil {
		return err
	}
	var fixes []ImportVariantLink
	for _, l := range im.links {
		path := fieldPath(l.index, "variantMaster")
		hs := holders[l.master]
		switch {
		case len(hs) > 1:
			return &Error{Path: path, Line: l.line,
				Msg: fmt.Sprintf("SKU %q is shared by several products, so it cannot name a variant master", l.master)}
		case len(hs) == 0:
			return &Error{Path: path, Line: l.line, Msg: fmt.Sprintf("no product with SKU %q", l.master)}
		case hs[0].ID == l.id:
			return &Error{Path: path, Line: l.line, Msg: "a product cannot be its own variant master"}
		case im.isVariant(hs[0]):
			return &Error{Path: path, Line: l.line,
				Msg: fmt.Sprintf("product %q is itself a variant, so it cannot be a master", l.master)}
		}
		if master := hs[0].ID; master != l.written {
			fixes = append(fixes, ImportVariantLink{ID: l.id, Master: master, Hash: rowHash(l.linked, master, l.shopify)})
			im.rewritten(l.outcome)
		}
	}
	return im.tables.SetImportVariantMasters(im.org, fixes, im.now)
}

// checkStoredVariants refuses a file that changes the master of a stored
// variant it leaves alone: that master must not become a variant, nor
// share its SKU with another product.
func (im *importer) checkStoredVariants() error {
	for _, m := range im.masters { // in file order
		if _, updated := im.seen[m.variant]; !updated {
			return &Error{Path: fieldPath(m.index, "variantMaster"), Line: m.line,
				Msg: fmt.Sprintf("this product is the master of stored variant %q, so it cannot be a variant", m.variantSKU)}
		}
	}

	skus := slices.Sorted(maps.Keys(im.shared))
	holders, err := im.holders(skus)
	if err != nil {
		return err
	}
	var masters []int64
	skuOf := map[int64]string{}
	for sku, hs := range holders {
		if len(hs) > 1 {
			for _, h := range hs {
				masters, skuOf[h.ID] = append(masters, h.ID), sku
			}
		}
	}
	var first *Error
	firstIndex := 0
	for start := 0; start < len(masters); start += batchSize {
		variants, err := im.tables.ImportVariantsOf(im.org, masters[start:min(start+batchSize, len(masters))])
		if err != nil {
			return err
		}
		for _, v := range variants {
			sku := skuOf[v.Master]
			index, e := im.sharedMasterError(v, sku, holders[sku])
			if e != nil && (first == nil || index < firstIndex) {
				first, firstIndex = e, index
			}
		}
	}
	if first != nil {
		return first
	}
	return nil
}

// sharedMasterError is the fault of variant v whose master's SKU is shared
// by holders, and the index of the product of the file at fault: the
// variant if the file has it, else the master, else the first product of
// the file with that SKU.
func (im *importer) sharedMasterError(v StoredProduct, sku string, holders []StoredProduct) (int, *Error) {
	if fp, inFile := im.seen[v.ID]; inFile {
		return int(fp.index), &Error{Path: fieldPath(int(fp.index), "variantMaster"), Line: int(fp.line),
			Msg: fmt.Sprintf("SKU %q is shared by several products, so it cannot name a variant master", sku)}
	}
	at, found := im.seen[v.Master]
	if !found { // the first product of the file with the SKU
		for _, h := range holders {
			if fp, inFile := im.seen[h.ID]; inFile && (!found || fp.index < at.index) {
				at, found = fp, true
			}
		}
	}
	if !found {
		return 0, nil
	}
	return int(at.index), &Error{Path: fieldPath(int(at.index), "sku"), Line: int(at.line),
		Msg: fmt.Sprintf("SKU %q is the SKU of the master of stored variant %q, so it cannot be shared", sku, v.SKU)}
}

// linkEarlyTemplates checks the templates of products read before the
// templates and re-links those whose template the file created or extended.
func (im *importer) linkEarlyTemplates() error {
	var ids []int64
	for _, e := range im.early {
		if im.state.Templates[e.template] == nil {
			return &Error{Path: fmt.Sprintf("products[%d].attributeTemplate", e.index), Line: e.line,
				Msg: fmt.Sprintf("no template named %q", e.template)}
		}
		if im.grown[e.template] {
			ids = append(ids, e.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := im.tables.ImportStoredRows(im.org, ids)
	if err != nil {
		return err
	}
	var relinks []ImportRelink
	var relinked []int64
	for _, e := range im.early {
		row, ok := rows[e.id]
		if !ok || !im.grown[e.template] {
			continue
		}
		t := im.state.Templates[e.template]
		attrs, _ := decodeStoredAttributes(row.Attributes)
		for i := range attrs {
			attrs[i].OptionID = t.Options[attrs[i].Attribute]
		}
		text := storedAttributesJSON(attrs)
		if row.Template == t.ID && row.Attributes == text {
			continue
		}
		row.Template, row.Attributes = t.ID, text
		relinks = append(relinks, ImportRelink{ID: e.id, Template: t.ID, Attributes: text, Hash: storedHash(row)})
		relinked = append(relinked, e.id)
		im.rewritten(e.outcome)
	}
	if err := im.tables.RelinkImportProducts(im.org, relinks, im.now); err != nil {
		return err
	}
	// note: their slots are the template's now
	return im.s.Catalog().RefreshGaps(im.org, relinked)
}

// deactivateMissing deactivates the organization's active products that
// the file does not contain.
func (im *importer) deactivateMissing() error {
	var ids []int64
	err := im.tables.EachActiveImportProduct(im.org, func(id int64) {
		if _, inFile := im.seen[id]; !inFile {
			ids = append(ids, id)
		}
	})
	if err != nil {
		return err
	}
	if err := im.tables.DeactivateImportProducts(im.org, ids, im.now); err != nil {
		return err
	}
	im.res.Deactivated = len(ids)
	return nil
}
