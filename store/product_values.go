package store

import (
	"context"
	"encoding/json/v2"
	"fmt"
	"slices"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

// A decision's effect on a product, in memory: a set of decisions applies
// it to the values it read with SQL (store/decide_set.go), then remembers
// what changed (store/enrichments.go).

// attributeLinker decides which template option an applied attribute links:
// the one it already links (current), else the proposed option when it is
// one of the organization's, else the option of the product's template
// with its name.
type attributeLinker func(current int64, proposed enrichment.StoredAttribute) int64

// linkerWith makes the attributeLinker of a product whose template's
// options are byName (option ids by attribute name; none without a
// template), for the proposed attributes.
func (s *Review) linkerWith(org enrichment.Org, byName map[string]int64, proposed []enrichment.StoredAttribute) (attributeLinker, error) {
	known, err := s.Catalog().optionRefs(org, unique(appendOptionIDs(nil, proposed)))
	if err != nil {
		return nil, err
	}
	return func(current int64, p enrichment.StoredAttribute) int64 {
		if current != 0 {
			return current
		}
		if _, ok := known[p.OptionID]; ok {
			return p.OptionID
		}
		return byName[p.Attribute]
	}, nil
}

// applyValues writes the named fields of values into p; proposed
// attributes replace or join p's by attribute name, linked by link.
func applyValues(p *enrichment.ProductValues, values enrichment.Fields, fields []string, link attributeLinker) {
	for _, name := range fields {
		switch name {
		case "name":
			p.Name = *values.Name
		case "slug":
			p.Slug = *values.Slug
		case "description":
			p.Description = *values.Description
		case "files":
			p.Files = *values.Files
		case "attributes":
			p.Attributes = mergedAttributes(p.Attributes, *values.Attributes, link)
		}
	}
}

// mergedAttributes is attrs (not modified) with proposed replacing or
// joining them by attribute name.
func mergedAttributes(attrs, proposed []enrichment.StoredAttribute, link attributeLinker) []enrichment.StoredAttribute {
	out := append([]enrichment.StoredAttribute{}, attrs...)
	for _, p := range proposed {
		found := false
		for i := range out {
			if out[i].Attribute == p.Attribute {
				out[i].Detail = p.Detail
				out[i].OptionID = link(out[i].OptionID, p)
				found = true
			}
		}
		if !found {
			out = append(out, enrichment.StoredAttribute{Attribute: p.Attribute, Detail: p.Detail, OptionID: link(0, p)})
		}
	}
	return out
}

// setValues writes the named fields of v to a product record.
func setValues(r *core.Record, v enrichment.ProductValues, fields []string) error {
	for _, name := range fields {
		switch name {
		case "name":
			r.Set("name", v.Name)
		case "slug":
			r.Set("slug", v.Slug)
		case "description":
			r.Set("description", v.Description)
		case "files":
			r.Set("files", v.Files)
		case "attributes":
			raw, err := attributesJSON(v.Attributes)
			if err != nil {
				return fmt.Errorf("encode attributes of product %s: %w", r.Id, err)
			}
			r.Set("attributes", raw)
		}
	}
	return nil
}

// attributesJSON renders attributes as stored: a list, [] for none.
func attributesJSON(attrs []enrichment.StoredAttribute) (string, error) {
	if attrs == nil {
		attrs = []enrichment.StoredAttribute{}
	}
	raw, err := json.Marshal(attrs)
	return string(raw), err
}

// productChecker checks product values against the products collection's
// own field rules (lengths, JSON size), as saving the product as a record
// would: a set of decisions writes products with SQL.
type productChecker struct {
	app core.App
	col *core.Collection
	rec *core.Record // reused: only the fields checked are set
}

func newProductChecker(app core.App) (*productChecker, error) {
	col, err := app.FindCachedCollectionByNameOrId(schema.Products)
	if err != nil {
		return nil, fmt.Errorf("products collection: %w", err)
	}
	return &productChecker{app: app, col: col, rec: core.NewRecord(col)}, nil
}

// check checks the named fields of v.
func (c *productChecker) check(v enrichment.ProductValues, fields []string) error {
	if err := setValues(c.rec, v, fields); err != nil {
		return err
	}
	for _, name := range fields {
		f := c.col.Fields.GetByName(name)
		if f == nil {
			continue
		}
		if err := f.ValidateValue(context.Background(), c.app, c.rec); err != nil {
			return cannotApply(validation.Errors{name: err})
		}
	}
	return nil
}

// productEdits applies decisions to products in memory and writes them
// together, in the caller's transaction: a single decision of the review
// hook and a set of decisions alike.
type productEdits struct {
	s      *Review
	org    enrichment.Org
	memory *acceptedMemory
	check  *productChecker
	// option ids of each template's attributes, and its slots, read once
	templates map[string]map[string]int64
	slots     map[string][]enrichment.SlotOption

	changed map[string]*enrichment.ProductValues // products with values applied
	fields  map[string][]string                  // and the fields applied to each
}

// newProductEdits prepares to edit org's products; close it after use.
func (s *Review) newProductEdits(org enrichment.Org, products []string) (*productEdits, error) {
	check, err := newProductChecker(s.app)
	if err != nil {
		return nil, err
	}
	memory, err := s.Catalog().acceptedMemoryOf(org, products)
	if err != nil {
		return nil, err
	}
	return &productEdits{s: s, org: org, memory: memory, check: check, templates: map[string]map[string]int64{}, slots: map[string][]enrichment.SlotOption{},
		changed: map[string]*enrichment.ProductValues{}, fields: map[string][]string{}}, nil
}

func (w *productEdits) close() { w.memory.close() }

// apply applies what a decision on revision applies to p's values in
// memory, once the product's field rules accept them, and remembers the
// accepted values; write writes the products.
func (w *productEdits) apply(revision string, p *setProduct, applied enrichment.Applied) (filled int, err error) {
	after := p.values
	var link attributeLinker
	if applied.Values.Attributes != nil {
		byName, ok := w.templates[p.Template]
		if !ok {
			if byName, err = w.s.Review().templateOptionIDs(w.org, p.Template); err != nil {
				return 0, err
			}
			w.templates[p.Template] = byName
		}
		if link, err = w.s.Review().linkerWith(w.org, byName, *applied.Values.Attributes); err != nil {
			return 0, err
		}
	}
	applyValues(&after, applied.Values, applied.Fields, link)
	if err := w.check.check(after, applied.Fields); err != nil {
		return 0, err
	}
	if err := w.memory.remember(revision, p.ID, acceptedChanges(p.values, after, applied.Fields)); err != nil {
		return 0, err
	}
	if filled, err = w.filled(p, after); err != nil {
		return 0, err
	}
	p.values = after
	w.changed[p.ID] = &p.values
	for _, f := range applied.Fields {
		if !slices.Contains(w.fields[p.ID], f) {
			w.fields[p.ID] = append(w.fields[p.ID], f)
		}
	}
	return filled, nil
}

// filled is how many of p's gaps its values after a decision fill (its
// images, which no decision changes, aside).
func (w *productEdits) filled(p *setProduct, after enrichment.ProductValues) (int, error) {
	slots, ok := w.slots[p.Template]
	if !ok {
		all, err := w.s.Catalog().slotOptionsOf(w.org, []string{p.Template})
		if err != nil {
			return 0, err
		}
		slots = all[p.Template]
		w.slots[p.Template] = slots
	}
	gaps := func(v enrichment.ProductValues) enrichment.Completeness {
		return enrichment.CompletenessOf(enrichment.SlotValues{Description: v.Description, Images: 1, Attributes: v.Attributes}, slots)
	}
	return enrichment.SlotsFilled(gaps(p.values), gaps(after)), nil
}

// write writes the products edited, with their new update time.
func (w *productEdits) write() error {
	if len(w.changed) == 0 {
		return nil
	}
	return w.s.Review().writeProductValues(w.org, w.changed, w.fields)
}
