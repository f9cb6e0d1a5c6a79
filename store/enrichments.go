package store

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"slices"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// Accepted values: what an accepted revision set on a product, per field
// (per attribute name for attributes), with the value the product had
// before. The review records them (rememberAccepted); the catalog import
// reads them to tell a feed that has not caught up with an enrichment from
// one that really changed (docs/catalog-format.md), and forgets them once
// the feed carries the accepted value or another one wins.
//
// Values are stored as text: the string itself (an attribute's detail for
// attributes), the JSON array for files; Before is nil for an attribute the
// product did not have.

// AcceptedValue is one value an accepted revision set on a product.
type AcceptedValue struct {
	Product   int64
	Field     string // an enrichable field
	Attribute string // the attribute's name for field "attributes", else ""
	Revision  int64
	Before    *string // nil: the attribute was absent
	Applied   string
}

// acceptedRow is an AcceptedValue as stored.
type acceptedRow struct {
	Product   string  `db:"product"`
	Field     string  `db:"field"`
	Attribute string  `db:"attribute"`
	Revision  string  `db:"revision"`
	Before    *string `db:"before"`
	Applied   string  `db:"applied"`
}

func (r acceptedRow) value() AcceptedValue {
	return AcceptedValue{Product: sqlparts.StoredID(r.Product), Field: r.Field, Attribute: r.Attribute,
		Revision: sqlparts.StoredID(r.Revision), Before: r.Before, Applied: r.Applied}
}

// acceptedChanges are the values an accepted decision changed in the
// named fields of a product, from before to after (product and revision
// left for the caller).
func acceptedChanges(before, after enrichment.ProductValues, fields []string) []AcceptedValue {
	var values []AcceptedValue
	add := func(field, attribute string, was *string, now string) {
		if was == nil || *was != now {
			values = append(values, AcceptedValue{Field: field, Attribute: attribute, Before: was, Applied: now})
		}
	}
	for _, field := range fields {
		switch field {
		case "name":
			add(field, "", &before.Name, after.Name)
		case "slug":
			add(field, "", &before.Slug, after.Slug)
		case "description":
			add(field, "", &before.Description, after.Description)
		case "files":
			was, _ := StringsJSON(before.Files)
			now, _ := StringsJSON(after.Files)
			add(field, "", &was, now)
		case "attributes":
			for i, a := range after.Attributes {
				if FindAttribute(after.Attributes[:i], a.Attribute) != nil {
					continue // a repeated name: the first one counts
				}
				var old *string
				if w := FindAttribute(before.Attributes, a.Attribute); w != nil {
					old = &w.Detail
				}
				add(field, a.Attribute, old, a.Detail)
			}
		}
	}
	return values
}

// acceptedMemory remembers accepted values in the caller's transaction,
// knowing the values already on record for the products it was given.
type acceptedMemory struct {
	org    enrichment.Org
	stored map[string][]acceptedRow // by product
	upsert *dbx.Query
}

// acceptedMemoryOf reads the accepted values on record for org's products
// and prepares to remember more; close it after use.
func (s *Catalog) acceptedMemoryOf(org enrichment.Org, products []string) (*acceptedMemory, error) {
	m := &acceptedMemory{org: org, stored: map[string][]acceptedRow{}}
	for start := 0; start < len(products); start += 500 {
		var rows []acceptedRow
		err := s.db().Select("product", "field", "attribute", "revision", "before", "applied").From(schema.AcceptedValuesTable).
			Where(dbx.HashExp{"organization": string(org)}).AndWhere(sqlparts.In("product", products[start:min(start+500, len(products))])).All(&rows)
		if err != nil {
			return nil, fmt.Errorf("read accepted values of organization %s: %w", org, err)
		}
		for _, r := range rows {
			m.stored[r.Product] = append(m.stored[r.Product], r)
		}
	}
	m.upsert = s.db().NewQuery(`INSERT INTO {{` + schema.AcceptedValuesTable + `}}
		([[organization]], [[product]], [[field]], [[attribute]], [[revision]], [[before]], [[applied]])
		VALUES ({:org}, {:product}, {:field}, {:attribute}, {:revision}, {:before}, {:applied})
		ON CONFLICT ([[product]], [[field]], [[attribute]]) DO UPDATE SET
		[[revision]] = excluded.[[revision]], [[before]] = excluded.[[before]], [[applied]] = excluded.[[applied]]`).Prepare()
	return m, nil
}

func (m *acceptedMemory) close() { m.upsert.Close() }

// remember records the values revision set on product (acceptedChanges).
// An accepted value that replaces another one still in place keeps that
// one's value before: the feed still carries it, not the first enrichment.
func (m *acceptedMemory) remember(revision, product string, values []AcceptedValue) error {
	stored := m.stored[product]
	for _, v := range values {
		i := slices.IndexFunc(stored, func(r acceptedRow) bool { return r.Field == v.Field && r.Attribute == v.Attribute })
		if i >= 0 && v.Before != nil && stored[i].Applied == *v.Before {
			v.Before = stored[i].Before // the earlier enrichment was still in place
		}
		_, err := m.upsert.Bind(dbx.Params{"org": string(m.org), "product": product, "field": v.Field, "attribute": v.Attribute,
			"revision": revision, "before": v.Before, "applied": v.Applied}).Execute()
		if err != nil {
			return fmt.Errorf("remember %s of product %s from revision %s: %w", v.Field, product, revision, err)
		}
		row := acceptedRow{Product: product, Field: v.Field, Attribute: v.Attribute, Revision: revision, Before: v.Before, Applied: v.Applied}
		if i >= 0 {
			stored[i] = row
		} else {
			stored = append(stored, row)
		}
	}
	m.stored[product] = stored
	return nil
}

// HasAcceptedValues says whether any of org's products has accepted values
// on record: if none, an import need not look for them batch by batch.
func (s *Catalog) HasAcceptedValues(org enrichment.Org) (bool, error) {
	var n int
	err := s.db().NewQuery(`SELECT COUNT(*) FROM (SELECT 1 FROM {{` + schema.AcceptedValuesTable + `}}
		WHERE [[organization]] = {:org} LIMIT 1)`).Bind(dbx.Params{"org": string(org)}).Row(&n)
	if err != nil {
		return false, fmt.Errorf("look for accepted values of organization %s: %w", org, err)
	}
	return n > 0, nil
}

// AcceptedValues returns the accepted values on record for org's products
// ids, by product.
func (s *Catalog) AcceptedValues(org enrichment.Org, ids []int64) (map[int64][]AcceptedValue, error) {
	out := map[int64][]AcceptedValue{}
	for start := 0; start < len(ids); start += 500 {
		var rows []acceptedRow
		err := s.db().Select("product", "field", "attribute", "revision", "before", "applied").From(schema.AcceptedValuesTable).
			Where(dbx.HashExp{"organization": string(org)}).
			AndWhere(sqlparts.In("product", sqlparts.FormatIDs(ids[start:min(start+500, len(ids))]))).All(&rows)
		if err != nil {
			return nil, fmt.Errorf("read accepted values of organization %s: %w", org, err)
		}
		for _, r := range rows {
			v := r.value()
			out[v.Product] = append(out[v.Product], v)
		}
	}
	return out, nil
}

// ForgetAcceptedValues drops accepted values of org's products: the feed
// caught up with them, or another value replaced them.
func (s *Catalog) ForgetAcceptedValues(org enrichment.Org, values []AcceptedValue) error {
	if len(values) == 0 {
		return nil
	}
	q := s.db().NewQuery(`DELETE FROM {{` + schema.AcceptedValuesTable + `}} WHERE [[product]] = {:product}
		AND [[field]] = {:field} AND [[attribute]] = {:attribute} AND [[organization]] = {:org}`).Prepare()
	defer q.Close()
	for _, v := range values {
		_, err := q.Bind(dbx.Params{"org": string(org), "product": FormatID(v.Product), "field": v.Field, "attribute": v.Attribute}).Execute()
		if err != nil {
			return fmt.Errorf("forget %s of product %d: %w", v.Field, v.Product, err)
		}
	}
	return nil
}

// MarkOverwritten adds fields to the overwrittenFields of org's revisions
// (revision id → fields), and attributes ("attributes.NAME") to their
// overwrittenAttributes: a catalog import replaced the values they applied.
func (s *Catalog) MarkOverwritten(org enrichment.Org, fields map[int64][]string, now string) error {
	if len(fields) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(fields))
	for id := range fields {
		ids = append(ids, id)
	}
	var rows []struct {
		ID          string `db:"id"`
		Overwritten string `db:"overwrittenFields"`
		Attributes  []byte `db:"overwrittenAttributes"`
	}
	err := s.db().Select("id", "overwrittenFields", "overwrittenAttributes").From(schema.Revisions).
		Where(dbx.HashExp{"organization": string(org)}).AndWhere(sqlparts.In("id", sqlparts.FormatIDs(unique(ids)))).All(&rows)
	if err != nil {
		return fmt.Errorf("read overwritten fields of organization %s: %w", org, err)
	}
	q := s.db().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[overwrittenFields]] = {:fields},
		[[overwrittenAttributes]] = {:attrs}, [[updated]] = {:now}
		WHERE [[id]] = {:id} AND [[organization]] = {:org}`).Prepare()
	defer q.Close()
	for _, r := range rows {
		had := decodeStrings([]byte(r.Overwritten))
		var all []string
		for _, name := range enrichment.EnrichableFields { // in API order, each once
			if slices.Contains(had, name) || slices.Contains(fields[sqlparts.StoredID(r.ID)], name) {
				all = append(all, name)
			}
		}
		attrs := decodeStrings(r.Attributes)
		for _, key := range fields[sqlparts.StoredID(r.ID)] {
			if _, name, one := enrichment.SplitKey(key); one && !slices.Contains(attrs, name) {
				attrs = append(attrs, name)
			}
		}
		text, err := json.Marshal(all)
		if err != nil {
			return err
		}
		var attrsText any // NULL while none is known
		if len(attrs) > 0 {
			b, err := json.Marshal(attrs)
			if err != nil {
				return err
			}
			attrsText = string(b)
		}
		params := dbx.Params{"id": r.ID, "org": string(org), "fields": string(text), "attrs": attrsText, "now": now}
		if _, err := q.Bind(params).Execute(); err != nil {
			return fmt.Errorf("mark revision %s overwritten: %w", r.ID, err)
		}
	}
	return nil
}

// CanonicalStrings renders a stored JSON string array (files, categories,
// images, variant attributes) as the import writes it; unreadable is [].
func CanonicalStrings(raw string) string {
	text, _ := StringsJSON(decodeStrings([]byte(raw)))
	return text
}

// StringsJSON renders strings as a JSON array, the way the import writes
// them and json.Marshal would (nil is []). note: by hand, since it runs for
// four fields of every product an import reads.
func StringsJSON(v []string) (string, error) {
	size := 2
	for _, t := range v {
		size += len(t) + 3
	}
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i, t := range v {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = jsontext.AppendQuote(b, t); err != nil {
			return "", err
		}
	}
	return string(append(b, ']')), nil
}

// FindAttribute returns the first attribute of that name, nil if none.
func FindAttribute(attrs []enrichment.StoredAttribute, name string) *enrichment.StoredAttribute {
	for i := range attrs {
		if attrs[i].Attribute == name {
			return &attrs[i]
		}
	}
	return nil
}
