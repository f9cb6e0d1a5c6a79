package store

import (
	"encoding/json/v2"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// The base copies stored attributes as they are; for attributes as the
// service stores them that must be the very JSON that encoding them as
// enrichment.Fields gives, which is what the API and the pages read.
func TestBaseSnapshotEncodesLikeFields(t *testing.T) {
	attrs := []enrichment.StoredAttribute{{Attribute: "Color", Detail: "Red", OptionID: 12}, {Attribute: "Care", Detail: "30 °C \"gentle\""}}
	stored, err := json.Marshal(attrs)
	if err != nil {
		t.Fatal(err)
	}
	name, files := "Old name", []string{"https://example.test/a.pdf"}
	p := submissionProduct{Name: name, Description: "Old text", Attributes: stored, Files: []byte(`["https://example.test/a.pdf"]`)}
	proposed := enrichment.Fields{Name: new(string), Attributes: &[]enrichment.StoredAttribute{}, Files: &[]string{}}

	got, err := json.Marshal(baseOf(p, proposed))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(enrichment.Fields{Name: &name, Attributes: &attrs, Files: &files})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("base\n got  %s\n want %s", got, want)
	}
}

func TestStoredArray(t *testing.T) {
	for raw, want := range map[string]string{
		"":                                       "[]",
		"null":                                   "[]",
		`{"attribute":"Color"}`:                  "[]",
		`[{"attribute":`:                         "[]",
		" [ ] ":                                  "[ ]",
		`[{"attribute":"Color","detail":"Red"}]`: `[{"attribute":"Color","detail":"Red"}]`,
	} {
		if got := string(storedArray([]byte(raw))); got != want {
			t.Errorf("storedArray(%q) = %q, want %q", raw, got, want)
		}
	}
}
