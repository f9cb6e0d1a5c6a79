package enrichment

import (
	"slices"
	"testing"
	"time"
)

// TestCorrectionsChecked: a corrected value passes the checks a submitted
// one does, against the product's template options: refused where a
// submission would drop it, normalized where a submission would.
func TestCorrectionsChecked(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	slug := "runner"
	attrs := []StoredAttribute{{Attribute: "Size", Detail: "44"}, {Attribute: "Waterproof", Detail: "true"}, {Attribute: "Color", Detail: "Red"}}
	rev := UnderReview{Status: StatusPending, Created: now.Add(-time.Hour), Proposed: Fields{Slug: &slug, Attributes: &attrs},
		Options: []CheckOption{{ID: 1, Name: "Size", Unit: "EU", DataType: DataTypeNumber}, {ID: 2, Name: "waterproof", DataType: DataTypeBoolean}}}
	for _, c := range []struct {
		name, key, value string
		want             string // the corrected value as applied; "" when refused
	}{
		{"a number", "attributes.Size", "45", "45"},
		{"a number with its unit", "attributes.Size", "45 EU", "45"},
		{"not a number", "attributes.Size", "about 45", ""},
		{"a boolean, normalized", "attributes.Waterproof", "Yes", "true"},
		{"not a boolean", "attributes.Waterproof", "maybe", ""},
		{"a free-form attribute", "attributes.Color", "Navy blue", "Navy blue"},
		{"a slug", "slug", "runner-pro", "runner-pro"},
		{"a slug with spaces", "slug", "Runner Pro", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			corrections, err := ParseObject("corrections", []byte(`{"`+c.key+`":"`+c.value+`"}`))
			if err != nil {
				t.Fatal(err)
			}
			applied, _, err := Decide(rev, Decision{Status: StatusAccepted, Corrections: corrections}, ReviewPolicy{}, now)
			if c.want == "" {
				if e, ok := AsError(err); !ok || e.Field != "corrections" || e.Rule != "validation_invalid_correction" {
					t.Fatalf("err %v, want an invalid correction", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(applied.Corrections) != 1 || applied.Corrections[0].Text != c.want {
				t.Fatalf("corrections as applied %+v, want %q", applied.Corrections, c.want)
			}
			got := ""
			if field, attr, _ := SplitKey(c.key); field == "slug" {
				got = *applied.Values.Slug
			} else if i := slices.IndexFunc(*applied.Values.Attributes, func(a StoredAttribute) bool { return a.Attribute == attr }); i >= 0 {
				got = (*applied.Values.Attributes)[i].Detail
			}
			if got != c.want {
				t.Errorf("the value applied is %q, want %q", got, c.want)
			}
		})
	}
}
