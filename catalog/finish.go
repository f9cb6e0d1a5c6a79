package catalog

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/store"
)

// finish writes the last batch, then checks and writes what needed the
// whole file: SKUs against stored products, variant masters, templates of
// products read before the templates, and the products the file lacks.
func (im *importer) finish() error {
	if err := im.flush(); err != nil {
		return err
	}
	if err := im.checkStoredSKUs(); err != nil {
		return err
	}
	if err := im.linkVariants(); err != nil {
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
	return im.writeAccepted()
}

// checkStoredSKUs refuses a file that would give a product the SKU of a
// stored product that the file does not update, unless both have an
// externalId, which tells them apart: then they share the SKU.
func (im *importer) checkStoredSKUs() error {
	var first *fileProduct
	var firstSKU string
	var owner int64
	for sku, fp := range im.skus {
		for _, sp := range im.state.BySKU[sku] {
			if sp.ID == fp.id {
				continue
			}
			if _, updated := im.targets[sp.ID]; updated {
				continue // its SKU changes
			}
			if fp.hasExternalID && sp.ExternalID != "" {
				continue // a shared SKU
			}
			if first == nil || fp.index < first.index {
				first, firstSKU, owner = &fp, sku, sp.ID
			}
		}
	}
	if first != nil {
		return &Error{Path: fmt.Sprintf("products[%d].sku", first.index), Line: first.line,
			Msg: fmt.Sprintf("SKU %q belongs to another stored product (id %d), which this file does not update and which has no externalId to tell the two apart", firstSKU, owner)}
	}
	return nil
}

// holders lists the products that have sku once the file is written: the
// file's (its first product, and whether others share it) and the stored
// ones that the file does not update.
func (im *importer) holders(sku string) (file fileProduct, inFile bool, stored []*store.StoredProduct) {
	file, inFile = im.skus[sku]
	for _, sp := range im.state.BySKU[sku] {
		if _, updated := im.targets[sp.ID]; !updated {
			stored = append(stored, sp)
		}
	}
	return file, inFile, stored
}

// linkVariants resolves every variant's master SKU, checks that masters are
// not variants themselves and that their SKU is not shared, and corrects
// the rows whose master was not known, or mispredicted, when written.
func (im *importer) linkVariants() error {
	var fixes []store.ImportVariantLink
	for _, l := range im.links {
		path := fmt.Sprintf("products[%d].variantMaster", l.index)
		var master int64
		isVariant := false
		fp, inFile, stored := im.holders(l.master)
		switch {
		case inFile && (fp.shared || len(stored) > 0), len(stored) > 1:
			return &Error{Path: path, Line: l.line,
				Msg: fmt.Sprintf("SKU %q is shared by several products, so it cannot name a variant master", l.master)}
		case inFile:
			master, isVariant = fp.id, fp.variant
		case len(stored) == 1:
			master, isVariant = stored[0].ID, stored[0].Master != 0
		}
		switch {
		case master == 0:
			return &Error{Path: path, Line: l.line, Msg: fmt.Sprintf("no product with SKU %q", l.master)}
		case master == l.id:
			return &Error{Path: path, Line: l.line, Msg: "a product cannot be its own variant master"}
		case isVariant:
			return &Error{Path: path, Line: l.line,
				Msg: fmt.Sprintf("product %q is itself a variant, so it cannot be a master", l.master)}
		}
		if master != l.written {
			fixes = append(fixes, store.ImportVariantLink{ID: l.id, Master: master, Hash: importHash(l.linked, master)})
			im.rewritten(l.id, l.outcome)
		}
	}

	// a stored variant that the file leaves alone keeps its master, which
	// therefore must not become a variant, nor share its SKU with a product
	// of the file
	for i := range im.state.Products {
		v := &im.state.Products[i]
		if _, updated := im.targets[v.ID]; v.Master == 0 || updated {
			continue
		}
		m, masterInFile := im.targets[v.Master]
		sku := m.sku
		switch {
		case masterInFile && m.variant:
			return &Error{Path: fmt.Sprintf("products[%d].variantMaster", m.index), Line: m.line,
				Msg: fmt.Sprintf("this product is the master of stored variant %q, so it cannot be a variant", v.SKU)}
		case !masterInFile && im.state.ByID[v.Master] == nil:
			continue
		case !masterInFile:
			sku = im.state.ByID[v.Master].SKU
		}
		fp, inFile, stored := im.holders(sku)
		holders := len(stored)
		if fp.shared {
			holders++
		}
		if inFile && holders > 0 {
			at := fp
			if masterInFile {
				at = m
			}
			return &Error{Path: fmt.Sprintf("products[%d].sku", at.index), Line: at.line,
				Msg: fmt.Sprintf("SKU %q is the SKU of the master of stored variant %q, so it cannot be shared", sku, v.SKU)}
		}
	}
	return im.s.SetImportVariantMasters(im.org, fixes, im.now)
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
	rows, err := im.s.ImportStoredRows(im.org, ids)
	if err != nil {
		return err
	}
	var relinks []store.ImportRelink
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
		relinks = append(relinks, store.ImportRelink{ID: e.id, Template: t.ID, Attributes: text, Hash: storedHash(row)})
		im.rewritten(e.id, e.outcome)
	}
	return im.s.RelinkImportProducts(im.org, relinks, im.now)
}

// deactivateMissing deactivates the organization's active products that
// the file does not contain.
func (im *importer) deactivateMissing() error {
	var ids []int64
	for i := range im.state.Products {
		p := &im.state.Products[i]
		if _, inFile := im.targets[p.ID]; p.Active && !inFile {
			ids = append(ids, p.ID)
		}
	}
	if err := im.s.DeactivateImportProducts(im.org, ids, im.now); err != nil {
		return err
	}
	im.res.Deactivated = len(ids)
	return nil
}
