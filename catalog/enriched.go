package catalog

import (
	"slices"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
)

// The rules for values that accepted revisions set (docs/catalog-format.md),
// per field, and per attribute name for attributes. An accepted value is
// still the revision's while the product holds it; then:
//
//   - the file carries the value the product had before the acceptance: the
//     feed has not caught up, the product keeps the accepted value;
//   - the file carries the accepted value: the feed caught up, nothing is
//     overwritten; the value is still the revision's and still remembered,
//     so that a later file that carries the earlier value again does not
//     take it back unseen (nor leave the revision's field saying applied);
//   - the file carries anything else (or --overwrite-enriched): the file
//     wins, and the revision's field shows overwritten.
//
// A value that someone else changed since is no longer the revision's: it
// is forgotten, and the file wins as it does over any value.

// acceptedChanges are the accepted values an import forgets and the
// revisions' fields it overwrites, written at the end.
type acceptedChanges struct {
	forget      []store.AcceptedValue
	overwritten map[int64][]string // revision id → fields and "attributes.NAME"
}

// keepAccepted applies the accepted values on record for a stored product
// (values, with current its stored row) to the row the file gives it, and
// reports whether it kept any.
func (im *importer) keepAccepted(q *decoded, current ImportProductRow, values []store.AcceptedValue) bool {
	currentAttrs, _ := decodeStoredAttributes(current.Attributes)
	var keptAttrs []string
	kept := false
	for _, v := range values {
		now, file := im.valuesOf(v, q, current, currentAttrs)
		switch {
		case now == nil || *now != v.Applied: // no longer the revision's
			im.accepted.forget = append(im.accepted.forget, v)
		case file != nil && *file == v.Applied: // the feed caught up: nothing to do
		case !im.opts.OverwriteEnriched && sameValue(file, v.Before):
			kept = true
			switch v.Field {
			case "name":
				q.row.Name = current.Name
			case "slug":
				q.row.Slug = current.Slug
			case "description":
				q.row.Desc = current.Desc
			case "files":
				q.row.Files = *now
			case "attributes":
				keptAttrs = append(keptAttrs, v.Attribute)
			}
		default:
			im.accepted.forget = append(im.accepted.forget, v)
			if fields := im.accepted.overwritten[v.Revision]; !slices.Contains(fields, v.Field) {
				im.accepted.overwritten[v.Revision] = append(fields, v.Field)
			}
			if v.Field == "attributes" { // and which attribute
				im.accepted.overwritten[v.Revision] = append(im.accepted.overwritten[v.Revision], enrichment.AttributeKey(v.Attribute))
			}
		}
	}
	if len(keptAttrs) > 0 {
		q.attrs = keepAttributes(q, currentAttrs, keptAttrs)
	}
	if kept {
		q.content, im.buf = contentDigest(im.buf, &q.row)
	}
	return kept
}

// valuesOf returns the product's current value and the file's value of
// what v describes; nil for an attribute that is absent.
func (im *importer) valuesOf(v store.AcceptedValue, q *decoded, current ImportProductRow,
	currentAttrs []enrichment.StoredAttribute) (now, file *string) {
	switch v.Field {
	case "name":
		return &current.Name, &q.p.Name
	case "slug":
		return &current.Slug, &q.p.Slug
	case "description":
		return &current.Desc, &q.p.Description
	case "files":
		files := store.CanonicalStrings(current.Files)
		return &files, &q.row.Files
	case "attributes":
		if a := store.FindAttribute(currentAttrs, v.Attribute); a != nil {
			now = &a.Detail
		}
		for i := range q.p.Attributes {
			if q.p.Attributes[i].Attribute == v.Attribute {
				return now, &q.p.Attributes[i].Detail
			}
		}
		return now, nil
	}
	return nil, nil // a field the import does not know: never the revision's
}

// keepAttributes is the file's attribute list with the stored attributes
// named in kept in place of the file's (the file's order, and option links
// by the template's names), and those the file lacks added after it, in
// their stored order.
func keepAttributes(q *decoded, current []enrichment.StoredAttribute, kept []string) []enrichment.StoredAttribute {
	out := make([]enrichment.StoredAttribute, 0, len(q.p.Attributes)+len(kept))
	inFile := map[string]bool{}
	for _, a := range q.p.Attributes {
		inFile[a.Attribute] = true
		if slices.Contains(kept, a.Attribute) {
			out = append(out, *store.FindAttribute(current, a.Attribute))
			continue
		}
		out = append(out, enrichment.StoredAttribute{Attribute: a.Attribute, Detail: a.Detail, OptionID: q.options[a.Attribute]})
	}
	for _, c := range current {
		if slices.Contains(kept, c.Attribute) && !inFile[c.Attribute] {
			inFile[c.Attribute] = true // once, like the file's
			out = append(out, c)
		}
	}
	return out
}

// sameValue compares two optional values.
func sameValue(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// writeAccepted forgets the accepted values that no longer hold and marks
// the revisions' fields that the file overwrote.
func (im *importer) writeAccepted() error {
	if err := im.s.Catalog().ForgetAcceptedValues(im.org, im.accepted.forget); err != nil {
		return err
	}
	return im.s.Catalog().MarkOverwritten(im.org, im.accepted.overwritten, im.now)
}
