package enrichment

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"slices"
)

// A rollback as a rule of values: what reverting one accepted revision does
// to its product. For each field and attribute the revision applied, the
// product gets back the value the revision's base recorded (the product's
// value when the proposal was submitted) if it still holds the value the
// revision applied; otherwise a later change won and the place is left
// alone, a conflict. The store selects the revisions, newest decision
// first, so that reverting several that applied the same field one after
// the other walks the field back to the oldest one's base
// (store/rollback.go; docs/review.md says the same in words).

// MaxRollbackChunk bounds how many revisions a rollback reverts per
// transaction: each chunk is atomic, and the writer is never held long.
const MaxRollbackChunk = 500

// AcceptedRevision is what a rollback needs of an accepted revision.
type AcceptedRevision struct {
	Proposed             Fields
	Base                 Fields   // the product's values at submission, of the proposed fields
	Approved             []string // approvedFields as stored; empty: every proposed field not superseded
	ApprovedAttributes   []string // approvedAttributes as stored; empty: every pending one
	Superseded           []string
	SupersededAttributes []string
	Corrections          map[string]jsontext.Value // as applied, by key; nil when none
}

// ProductValues are a product's enrichable values, as a rollback reads and
// restores them.
type ProductValues struct {
	Name, Slug, Description string
	Attributes              []StoredAttribute
	Files                   []string
}

// Reverting is what reverting one revision did.
type Reverting struct {
	Fields     []string // restored fields, in API order; "attributes" when any attribute was
	Attributes []string // names of the restored attributes, in the order proposed
	Conflicts  []string // places left alone: fields and "attributes.NAME"
}

// Restored is how many fields and attributes were restored ("attributes"
// itself counts by its attributes).
func (r Reverting) Restored() int {
	n := len(r.Attributes)
	for _, f := range r.Fields {
		if f != "attributes" {
			n++
		}
	}
	return n
}

// Revert restores on p what rev applied, where p still holds it. A nil p
// (the product is gone) holds nothing: every place is a conflict.
func Revert(rev AcceptedRevision, p *ProductValues) Reverting {
	var out Reverting
	gone := p == nil
	if gone {
		p = &ProductValues{}
	}
	applied := rev.Approved
	if len(applied) == 0 {
		applied = PendingFields(rev.Proposed, rev.Superseded)
	}
	text := func(field string, proposed *string) string {
		if raw, ok := rev.Corrections[field]; ok {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				return s
			}
		}
		return *proposed
	}
	restore := func(field string, current *string, proposed, base *string) {
		switch {
		case proposed == nil:
		case gone || base == nil || *current != text(field, proposed):
			out.Conflicts = append(out.Conflicts, field)
		default:
			*current = *base
			out.Fields = append(out.Fields, field)
		}
	}
	for _, field := range EnrichableFields {
		if !slices.Contains(applied, field) {
			continue
		}
		switch field {
		case "name":
			restore(field, &p.Name, rev.Proposed.Name, rev.Base.Name)
		case "slug":
			restore(field, &p.Slug, rev.Proposed.Slug, rev.Base.Slug)
		case "description":
			restore(field, &p.Description, rev.Proposed.Description, rev.Base.Description)
		case "attributes":
			if revertAttributes(rev, p, &out) {
				out.Fields = append(out.Fields, field)
			}
		case "files":
			revertFiles(rev, p, gone, &out)
		}
	}
	return out
}

// revertFiles restores the files rev applied (or its correction of them)
// where p still holds exactly them; anything else is a conflict.
func revertFiles(rev AcceptedRevision, p *ProductValues, gone bool, out *Reverting) {
	if rev.Proposed.Files == nil {
		return
	}
	want := *rev.Proposed.Files
	if raw, ok := rev.Corrections["files"]; ok {
		_ = json.Unmarshal(raw, &want)
	}
	if gone || rev.Base.Files == nil || !slices.Equal(p.Files, want) {
		out.Conflicts = append(out.Conflicts, "files")
		return
	}
	p.Files = slices.Clone(*rev.Base.Files)
	out.Fields = append(out.Fields, "files")
}

// revertAttributes restores each attribute rev applied whose first entry
// on p still has the detail rev applied: to the base's detail (and option)
// when the product had the attribute then, else by removing it. It reports
// whether any was restored.
func revertAttributes(rev AcceptedRevision, p *ProductValues, out *Reverting) bool {
	if rev.Proposed.Attributes == nil {
		return false
	}
	names := rev.ApprovedAttributes
	if len(names) == 0 {
		names = PendingAttributes(rev.Proposed, rev.Superseded, rev.SupersededAttributes)
	}
	var base []StoredAttribute
	if rev.Base.Attributes != nil {
		base = *rev.Base.Attributes
	}
	restored := false
	for _, name := range names {
		i := slices.IndexFunc(*rev.Proposed.Attributes, func(a StoredAttribute) bool { return a.Attribute == name })
		if i < 0 {
			continue
		}
		want := (*rev.Proposed.Attributes)[i].Detail
		if raw, ok := rev.Corrections[AttributeKey(name)]; ok {
			_ = json.Unmarshal(raw, &want)
		}
		j := slices.IndexFunc(p.Attributes, func(a StoredAttribute) bool { return a.Attribute == name })
		if j < 0 || p.Attributes[j].Detail != want {
			out.Conflicts = append(out.Conflicts, AttributeKey(name))
			continue
		}
		was := slices.IndexFunc(base, func(a StoredAttribute) bool { return a.Attribute == name })
		if was < 0 {
			p.Attributes = slices.DeleteFunc(p.Attributes, func(a StoredAttribute) bool { return a.Attribute == name })
		} else {
			for k := range p.Attributes {
				if p.Attributes[k].Attribute == name {
					p.Attributes[k].Detail = base[was].Detail
					if base[was].OptionID != 0 {
						p.Attributes[k].OptionID = base[was].OptionID
					}
				}
			}
		}
		out.Attributes = append(out.Attributes, name)
		restored = true
	}
	return restored
}
