package enrichment_test

import (
	"encoding/json/jsontext"
	"fmt"
	"slices"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// Revert restores each place a revision applied while the product still
// holds the applied value (a correction being what was applied), to the
// base's value; anything else is a conflict, and nothing is touched there.
func TestRevert(t *testing.T) {
	s := func(v string) *string { return &v }
	attrs := func(kv ...string) *[]enrichment.StoredAttribute {
		var out []enrichment.StoredAttribute
		for i := 0; i < len(kv); i += 2 {
			out = append(out, enrichment.StoredAttribute{Attribute: kv[i], Detail: kv[i+1]})
		}
		return &out
	}
	rev := enrichment.AcceptedRevision{
		Proposed: enrichment.Fields{Name: s("New"), Slug: s("new"), Attributes: attrs("Color", "Navy", "Fit", "Narrow", "Sole", "Rubber"),
			Files: &[]string{"b.pdf"}},
		Base: enrichment.Fields{Name: s("Old"), Slug: s("old"), Attributes: attrs("Color", "Red", "Fit", "Wide"), Files: &[]string{"a.pdf"}},
	}
	product := func() *enrichment.ProductValues {
		return &enrichment.ProductValues{Name: "New", Slug: "new", Description: "Kept",
			Attributes: *attrs("Color", "Navy", "Fit", "Narrow", "Sole", "Rubber", "Color", "Navy"), Files: []string{"b.pdf"}}
	}
	cases := []struct {
		name   string
		change func(r *enrichment.AcceptedRevision, p *enrichment.ProductValues)
		gone   bool
		want   string // fields | attributes | conflicts
		values string // the product afterwards
	}{
		{name: "everything as applied", change: func(*enrichment.AcceptedRevision, *enrichment.ProductValues) {},
			want:   "[name slug attributes files] [Color Fit Sole] []",
			values: "Old old Kept [{Color Red 0} {Fit Wide 0} {Color Red 0}] [a.pdf]"},
		{name: "later changes win", change: func(_ *enrichment.AcceptedRevision, p *enrichment.ProductValues) {
			p.Name, p.Files, p.Attributes[1].Detail = "Edited", []string{"c.pdf"}, "Regular"
		}, want: "[slug attributes] [Color Sole] [name attributes.Fit files]",
			values: "Edited old Kept [{Color Red 0} {Fit Regular 0} {Color Red 0}] [c.pdf]"},
		{name: "a partial approval of one corrected attribute", change: func(r *enrichment.AcceptedRevision, p *enrichment.ProductValues) {
			r.Approved, r.ApprovedAttributes = []string{"attributes"}, []string{"Fit"}
			r.Corrections = map[string]jsontext.Value{"attributes.Fit": jsontext.Value(`"Slim"`)}
			p.Attributes[1].Detail = "Slim"
		}, want: "[attributes] [Fit] []", values: "New new Kept [{Color Navy 0} {Fit Wide 0} {Sole Rubber 0} {Color Navy 0}] [b.pdf]"},
		{name: "a superseded field was not applied", change: func(r *enrichment.AcceptedRevision, _ *enrichment.ProductValues) {
			r.Superseded = []string{"slug", "attributes"}
		}, want: "[name files] [] []", values: "Old new Kept [{Color Navy 0} {Fit Narrow 0} {Sole Rubber 0} {Color Navy 0}] [a.pdf]"},
		{name: "no base recorded", change: func(r *enrichment.AcceptedRevision, _ *enrichment.ProductValues) {
			r.Base.Name = nil
		}, want: "[slug attributes files] [Color Fit Sole] [name]", values: "New old Kept [{Color Red 0} {Fit Wide 0} {Color Red 0}] [a.pdf]"},
		{name: "the product is gone", gone: true, change: func(*enrichment.AcceptedRevision, *enrichment.ProductValues) {},
			want: "[] [] [name slug attributes.Color attributes.Fit attributes.Sole files]"},
	}
	for _, c := range cases {
		r, p := rev, product()
		r.Corrections = nil
		c.change(&r, p)
		var did enrichment.Reverting
		if c.gone {
			did = enrichment.Revert(r, nil)
		} else {
			did = enrichment.Revert(r, p)
		}
		got := fmt.Sprint(orNone(did.Fields), " ", orNone(did.Attributes), " ", orNone(did.Conflicts))
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
		if c.gone {
			continue
		}
		if values := fmt.Sprint(p.Name, " ", p.Slug, " ", p.Description, " ", p.Attributes, " ", p.Files); values != c.values {
			t.Errorf("%s: product %s, want %s", c.name, values, c.values)
		}
		if n := did.Restored(); n != len(did.Attributes)+len(slices.DeleteFunc(slices.Clone(did.Fields), func(f string) bool { return f == "attributes" })) {
			t.Errorf("%s: restored %d", c.name, n)
		}
	}
}

func orNone(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
