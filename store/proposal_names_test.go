package store

import (
	"slices"
	"testing"
)

// TestProposalNames checks the one-pass reading of a revision's proposed
// JSON: the fields proposed (present and not null), in API order whatever
// the stored order, and the attributes' names once each in the order
// proposed; nothing from unreadable JSON, no attribute names from
// attributes of an unexpected shape.
func TestProposalNames(t *testing.T) {
	for _, c := range []struct {
		raw        string
		fields     []string
		attributes []string
	}{
		{`{"name":"A","description":"B"}`, []string{"name", "description"}, nil},
		{`{"files":["x"],"attributes":[{"attribute":"Color","detail":"Red"},{"attribute":"Care","option":{"optionId":3}},{"attribute":"Color"}],"name":"A"}`,
			[]string{"name", "attributes", "files"}, []string{"Color", "Care"}},
		{`{"name":null,"slug":"s","gtin":"1","description":{"odd":[1,2]}}`, []string{"slug", "description"}, nil},
		{`{"attributes":null}`, nil, nil},
		{`{"attributes":[]}`, []string{"attributes"}, nil},
		{`{"attributes":[{"detail":"no name"},null,{"attribute":null}]}`, []string{"attributes"}, []string{""}},
		{`{"attributes":{"attribute":"Color"}}`, []string{"attributes"}, nil},
		{`{"attributes":["Color"],"name":"A"}`, []string{"name", "attributes"}, nil},
		{`{"attributes":[{"attribute":7}],"name":"A"}`, []string{"name", "attributes"}, nil},
		{`{"name":"A",`, nil, nil},
		{`["name"]`, nil, nil},
		{``, nil, nil},
		{`null`, nil, nil},
	} {
		fields, attributes := proposalNames([]byte(c.raw))
		if !slices.Equal(fields, c.fields) || !slices.Equal(attributes, c.attributes) {
			t.Errorf("%s: fields %q, attributes %q; want %q, %q", c.raw, fields, attributes, c.fields, c.attributes)
		}
	}
}

// BenchmarkProposalNames reads the names of a typical stored proposal.
func BenchmarkProposalNames(b *testing.B) {
	raw := []byte(`{"name":"Vendor title for SKU-000123","description":"Built for everyday use, it keeps its shape after many washes and seasons. Built for everyday use, it keeps its shape after many washes and seasons. Built for everyday use, it keeps its shape after many washes and seasons.","attributes":[{"attribute":"Color","detail":"Deep Red","option":{"optionId":12}},{"attribute":"Care","detail":"Machine wash 30 °C","option":null}],"files":["https://docs.example/vendor/SKU-000123-datasheet.pdf"]}`)
	for b.Loop() {
		if f, a := proposalNames(raw); len(f) != 4 || len(a) != 2 {
			b.Fatal(f, a)
		}
	}
}
