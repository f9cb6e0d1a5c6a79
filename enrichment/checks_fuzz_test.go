package enrichment_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// slugPattern is the slug rule as the contract words it, to hold ValidSlug to.
var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// numberPattern is a decimal number as the checks accept it.
var numberPattern = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// FuzzChecks runs the checks on arbitrary values and holds them to their
// rules: a number or boolean is kept as it is, normalized to the accepted
// form, or refused unchanged; ValidSlug agrees with the pattern; every
// issue names a place of the item, every error's place is in the ignored
// list; and a second pass over what the first kept finds no error and
// changes nothing (the normalizations are final).
//
//	GOTOOLCHAIN=auto go test ./enrichment/ -run '^$' -fuzz FuzzChecks -fuzztime 30s
func FuzzChecks(f *testing.F) {
	f.Add("43 EU", "EU", "color", "Trail Runner", "Yes")
	f.Add("-1.5\tkg", "kg", "SIZE", "trail-runner", "0")
	f.Add("approx. 2kg", "kg", "Waterproof", "runner", "maybe")
	f.Add("", "", "", "", "")
	f.Fuzz(func(t *testing.T, detail, unit, name, slug, yes string) {
		n, code := enrichment.CheckNumber(detail, unit)
		switch code {
		case "":
			if n != detail || !numberPattern.MatchString(n) {
				t.Errorf("CheckNumber(%q, %q) kept %q", detail, unit, n)
			}
		case enrichment.IssueUnitRemoved:
			if unit == "" || !numberPattern.MatchString(n) || !strings.HasPrefix(detail, n) || !strings.HasSuffix(detail, unit) ||
				strings.TrimSpace(detail[len(n):len(detail)-len(unit)]) != "" || len(detail)-len(unit) == len(n) {
				t.Errorf("CheckNumber(%q, %q) removed a unit: %q", detail, unit, n)
			}
		case enrichment.IssueNotANumber:
			if n != detail || numberPattern.MatchString(detail) {
				t.Errorf("CheckNumber(%q, %q) refused: %q", detail, unit, n)
			}
		default:
			t.Errorf("CheckNumber code %q", code)
		}
		b, code := enrichment.CheckBoolean(yes)
		if code == enrichment.IssueNotABoolean {
			if b != yes {
				t.Errorf("CheckBoolean(%q) refused and changed it: %q", yes, b)
			}
		} else if b != "true" && b != "false" || (code == "") != (b == yes) {
			t.Errorf("CheckBoolean(%q) = %q, %q", yes, b, code)
		}
		if enrichment.ValidSlug(slug) != slugPattern.MatchString(slug) {
			t.Errorf("ValidSlug(%q) = %v", slug, enrichment.ValidSlug(slug))
		}

		product := enrichment.CheckProduct{Name: name, Slug: "runner", Attributes: []enrichment.StoredAttribute{{Attribute: "Size", Detail: detail}},
			Options: []enrichment.CheckOption{{ID: 1, Name: "Size", Unit: unit, DataType: "NUMBER"}, {ID: 2, Name: "Waterproof", DataType: "BOOLEAN"},
				{ID: 3, Name: name}},
			SlugInUse: len(slug)%2 == 0}
		attrs := []enrichment.StoredAttribute{{Attribute: strings.ToUpper(name), Detail: yes}, {Attribute: "size", Detail: detail},
			{Attribute: "waterproof", Detail: yes}, {Attribute: name, Detail: detail}}
		p := enrichment.Proposal{Fields: enrichment.Fields{Name: &detail, Slug: &slug, Attributes: &attrs}}
		issues := append(enrichment.CheckSlug(&p), enrichment.CheckProposal(&p, product)...)
		for _, is := range issues {
			valid := is.Field == "name" || is.Field == "slug" || slices.Contains([]string{"attributes.0", "attributes.1", "attributes.2", "attributes.3"}, is.Field)
			if !valid || is.Message == "" || !slices.Contains(enrichment.IssueCodes, is.Code) {
				t.Errorf("issue %+v", is)
			}
			if (is.Severity == enrichment.SeverityError || is.Code == enrichment.IssueUnchanged) && !slices.Contains(p.Ignored, is.Field) {
				t.Errorf("%s dropped but not ignored: %v", is.Field, p.Ignored)
			}
		}
		kept := 0
		if p.Fields.Attributes != nil {
			kept = len(*p.Fields.Attributes)
		}
		dropped := 0
		for _, f := range p.Ignored {
			if strings.HasPrefix(f, "attributes.") {
				dropped++
			}
		}
		if kept+dropped != 4 {
			t.Errorf("%d attributes kept and %d dropped of 4", kept, dropped)
		}

		// the second pass
		if p.Fields.Attributes == nil {
			return
		}
		again := *p.Fields.Attributes
		before := slices.Clone(again)
		q := enrichment.Proposal{Fields: enrichment.Fields{Attributes: &again}}
		for _, is := range enrichment.CheckProposal(&q, enrichment.CheckProduct{Options: product.Options}) {
			// note: a warning keeps the value, so a value that begins like a
			// formula is warned of again
			if is.Code != enrichment.IssueNotInTemplate && is.Code != enrichment.IssueRenamed && is.Code != enrichment.IssueFormulaLike {
				t.Errorf("second pass over %+v: %+v", before, is)
			}
		}
		if q.Fields.Attributes == nil || !slices.Equal(*q.Fields.Attributes, before) && !renamedOnly(before, *q.Fields.Attributes) {
			t.Errorf("second pass changed %+v to %+v", before, q.Fields.Attributes)
		}
	})
}

// renamedOnly reports whether b is a with names respelled but for case:
// two options whose names differ only in case can trade places.
func renamedOnly(a, b []enrichment.StoredAttribute) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i].Attribute, b[i].Attribute) || a[i].Detail != b[i].Detail {
			return false
		}
	}
	return true
}
