package catalog

import (
	"encoding/json/v2"
	"fmt"

	"github.com/catalog-enrichment/enrichment/store"
)

// finish writes the last batch, then checks and writes what needed the
// whole file: SKUs against stored products, variant masters, and templates
// of products read before the templates.
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
	return im.linkEarlyTemplates()
}

// checkStoredSKUs refuses a file that would give a product the SKU of a
// stored product that the file does not update.
func (im *importer) checkStoredSKUs() error {
	var first *fileProduct
	var firstSKU string
	var owner int64
	for sku, fp := range im.skus {
		sp, ok := im.state.BySKU[sku]
		if !ok || sp.ID == fp.id {
			continue
		}
		if _, updated := im.targets[sp.ID]; updated {
			continue // its SKU changes
		}
		if first == nil || fp.index < first.index {
			first, firstSKU, owner = &fp, sku, sp.ID
		}
	}
	if first != nil {
		return &Error{Path: fmt.Sprintf("products[%d].sku", first.index), Line: first.line,
			Msg: fmt.Sprintf("SKU %q belongs to another stored product (id %d), which this file does not update", firstSKU, owner)}
	}
	return nil
}

// linkVariants resolves every variant's master SKU, checks that masters are
// not variants themselves and writes the links that pointed forward.
func (im *importer) linkVariants() error {
	storedMaster := make(map[int64]int64, len(im.state.Variants)) // stored variant → its master
	for _, v := range im.state.Variants {
		storedMaster[v.ID] = v.Master
	}

	var pending []store.ImportVariantLink
	for _, l := range im.links {
		path := fmt.Sprintf("products[%d].variantMaster", l.index)
		var master int64
		isVariant := false
		if fp, ok := im.skus[l.master]; ok {
			master, isVariant = fp.id, fp.variant
		} else if sp, ok := im.state.BySKU[l.master]; ok {
			if _, updated := im.targets[sp.ID]; !updated { // else its SKU is no longer l.master
				master = sp.ID
				_, isVariant = storedMaster[sp.ID]
			}
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
		if !l.set {
			pending = append(pending, store.ImportVariantLink{ID: l.id, Master: master})
		}
	}

	// a stored variant that the file leaves alone keeps its master, which
	// therefore must not become a variant
	for _, v := range im.state.Variants {
		if _, updated := im.targets[v.ID]; updated {
			continue
		}
		if m, ok := im.targets[v.Master]; ok && m.variant {
			return &Error{Path: fmt.Sprintf("products[%d].variantMaster", m.index), Line: m.line,
				Msg: fmt.Sprintf("this product is the master of stored variant %q, so it cannot be a variant", v.SKU)}
		}
	}
	return im.s.SetImportVariantMasters(im.org, pending)
}

// linkEarlyTemplates checks the templates of products read before the
// templates and re-links those whose template the file created or extended.
func (im *importer) linkEarlyTemplates() error {
	var ids []int64
	templateOf := map[int64]string{}
	for _, e := range im.early {
		if im.state.Templates[e.template] == nil {
			return &Error{Path: fmt.Sprintf("products[%d].attributeTemplate", e.index), Line: e.line,
				Msg: fmt.Sprintf("no template named %q", e.template)}
		}
		if im.grown[e.template] {
			ids = append(ids, e.id)
			templateOf[e.id] = e.template
		}
	}
	var decodeErr error
	err := im.s.RelinkImportProducts(im.org, ids, func(id int64, stored string) (int64, string) {
		t := im.state.Templates[templateOf[id]]
		var attrs []Attribute
		if err := json.Unmarshal([]byte(stored), &attrs); err != nil && decodeErr == nil {
			decodeErr = fmt.Errorf("re-read attributes of product %d: %w", id, err)
		}
		return t.ID, attributesJSON(attrs, t.Options)
	})
	if decodeErr != nil {
		return decodeErr
	}
	return err
}
