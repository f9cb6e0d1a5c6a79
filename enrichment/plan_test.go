package enrichment_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// A group accept applies at most one proposal to a field: the most
// confident, then the older, then the lower id, among every pending
// proposal of the product; a candidate that loses a field is left whole.
func TestPlanAccept(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rev := func(id, product int64, confidence int, minute int, fields ...string) enrichment.Contender {
		return enrichment.Contender{ID: id, Product: product, Confidence: confidence,
			Created: t0.Add(time.Duration(minute) * time.Minute), Fields: fields}
	}
	cases := []struct {
		name               string
		candidates, others []enrichment.Contender
		accept             string // ids, comma-separated
		left               string // id: field>winner, …; revisions separated by " | "
	}{
		{name: "alone", candidates: []enrichment.Contender{rev(1, 10, 90, 0, "name")}, accept: "1"},
		{name: "nothing", accept: ""},
		{name: "a more confident other wins", candidates: []enrichment.Contender{rev(1, 10, 90, 0, "name")},
			others: []enrichment.Contender{rev(2, 10, 95, 1, "name")}, left: "1: name>2"},
		{name: "a less confident other loses", candidates: []enrichment.Contender{rev(1, 10, 90, 5, "name")},
			others: []enrichment.Contender{rev(2, 10, 85, 0, "name")}, accept: "1"},
		{name: "equal confidence: the older wins", candidates: []enrichment.Contender{rev(1, 10, 90, 5, "name")},
			others: []enrichment.Contender{rev(2, 10, 90, 0, "name")}, left: "1: name>2"},
		{name: "equal confidence and time: the lower id wins", candidates: []enrichment.Contender{rev(3, 10, 90, 0, "name")},
			others: []enrichment.Contender{rev(2, 10, 90, 0, "name")}, left: "3: name>2"},
		{name: "no confidence counts as 0", candidates: []enrichment.Contender{rev(1, 10, 0, 0, "name")},
			others: []enrichment.Contender{rev(2, 10, 1, 9, "name")}, left: "1: name>2"},
		{name: "other fields do not compete", candidates: []enrichment.Contender{rev(1, 10, 80, 0, "name")},
			others: []enrichment.Contender{rev(2, 10, 99, 0, "description")}, accept: "1"},
		{name: "other products do not compete", candidates: []enrichment.Contender{rev(1, 10, 80, 0, "name")},
			others: []enrichment.Contender{rev(2, 11, 99, 0, "name")}, accept: "1"},
		{name: "losing one field leaves the whole revision",
			candidates: []enrichment.Contender{rev(1, 10, 90, 0, "name", "slug", "files")},
			others:     []enrichment.Contender{rev(2, 10, 95, 0, "slug"), rev(3, 10, 91, 0, "files")},
			left:       "1: slug>2, files>3"},
		{name: "candidates compete among themselves",
			candidates: []enrichment.Contender{rev(1, 10, 85, 0, "name"), rev(2, 10, 95, 1, "name"), rev(3, 11, 80, 2, "name")},
			accept:     "2,3", left: "1: name>2"},
		{name: "a gone product competes with nothing",
			candidates: []enrichment.Contender{rev(1, 0, 80, 0, "name"), rev(2, 0, 99, 0, "name")}, accept: "1,2"},
		{name: "a candidate among the others stands as a candidate",
			candidates: []enrichment.Contender{rev(1, 10, 90, 0, "name")},
			others:     []enrichment.Contender{rev(1, 10, 90, 0, "name", "slug"), rev(2, 10, 95, 0, "slug")}, accept: "1"},
		{name: "no pending field: nothing to lose", candidates: []enrichment.Contender{rev(1, 10, 90, 0)},
			others: []enrichment.Contender{rev(2, 10, 95, 0, "name")}, accept: "1"},
	}
	for _, c := range cases {
		accept, left := enrichment.PlanAccept(c.candidates, c.others)
		var ids []string
		for _, r := range accept {
			ids = append(ids, fmt.Sprint(r.ID))
		}
		var lefts []string
		for _, l := range left {
			var lost []string
			for _, x := range l.Lost {
				lost = append(lost, fmt.Sprintf("%s>%d", x.Field, x.To.ID))
			}
			lefts = append(lefts, fmt.Sprintf("%d: %s", l.Revision.ID, strings.Join(lost, ", ")))
		}
		if got := strings.Join(ids, ","); got != c.accept {
			t.Errorf("%s: accept %q, want %q", c.name, got, c.accept)
		}
		if got := strings.Join(lefts, " | "); got != c.left {
			t.Errorf("%s: left %q, want %q", c.name, got, c.left)
		}
	}
}

// Every value the page shows has a name for people, and the bands come
// highest first, then the revisions without confidence.
func TestVocabulary(t *testing.T) {
	v := enrichment.NewVocabulary([]string{"confidence-desc", "confidence-asc", "age-desc", "age-asc"})
	for kind, list := range map[string][]enrichment.Term{"bands": v.Bands, "fields": v.Fields, "reasons": v.Reasons,
		"outcomes": v.Outcomes, "sorts": v.Sorts} {
		for _, term := range list {
			if term.Label == term.Value && !slices.Contains([]string{"none", "pending", "applied", "corrected", "superseded", "expired", "overwritten", "reverted"}, term.Value) {
				t.Errorf("%s: %q has no name for people", kind, term.Value)
			}
		}
	}
	var bands []string
	for _, b := range v.Bands {
		bands = append(bands, b.Value)
	}
	if want := []string{"80-100", "50-79", "0-49", "none"}; !slices.Equal(bands, want) {
		t.Errorf("bands %v, want %v", bands, want)
	}
	if len(v.Reasons) != len(enrichment.Reasons) || len(v.Fields) != len(enrichment.EnrichableFields) {
		t.Errorf("reasons %v, fields %v", v.Reasons, v.Fields)
	}
	if v.Limits.CommentLength != enrichment.MaxCommentLength || v.Limits.BulkMinConfidence != 80 {
		t.Errorf("limits %+v", v.Limits)
	}
	if enrichment.ConfidenceBand(v.Limits.BulkMinConfidence) != v.Bands[0].Value {
		t.Errorf("the bulk accept's least confidence %d is not in the top band", v.Limits.BulkMinConfidence)
	}
}
