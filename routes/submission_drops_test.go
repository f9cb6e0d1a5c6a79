package routes_test

import (
	"encoding/json/v2"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tests"
)

// TestSubmissionDropsWhatProductsCannotStore: a value the product could not
// store is dropped and named in ignoredFields like an empty one: the text
// fields as a whole, list elements on their own (by their place), a list
// only when nothing of it is left or it would not fit the product.
func TestSubmissionDropsWhatProductsCannotStore(t *testing.T) {
	f := fixture.Get(t)
	long := func(n int, s string) string { return strings.Repeat(s, n) }
	attr := func(name, detail string) map[string]any { return map[string]any{"attribute": name, "detail": detail} }
	type row struct {
		name     string
		item     map[string]any // sku SKU-1 added
		ignored  string         // ignoredFields, comma-separated
		proposed string         // the revision's proposed JSON; "" when not CREATED
	}
	rows := []row{
		{"a name of 1001 characters", map[string]any{"name": long(1001, "x"), "slug": "ok"}, "name", `{"slug":"ok"}`},
		{"a name of 1000 two-byte characters fits", map[string]any{"name": long(1000, "é")}, "",
			`{"name":"` + long(1000, "é") + `"}`},
		{"a description over its limit", map[string]any{"description": long(100_001, "d")}, "description", ""},
		{"a description at its limit", map[string]any{"description": long(100_000, "d")}, "",
			`{"description":"` + long(100_000, "d") + `"}`},
		{"NUL, carriage return, escape and a C1 control in text",
			map[string]any{"name": "a\x00b", "slug": "a\rb", "description": "\x1b[31m", "files": []string{"\u0085"}},
			"name,slug,description,files", ""},
		{"tab and newline are text", map[string]any{"description": "one\ttwo\nthree"}, "",
			`{"description":"one\ttwo\nthree"}`},
		{"attribute elements dropped on their own", map[string]any{"attributes": []any{
			attr("Color", "Crimson"), map[string]any{"attribute": "Fit"}, attr("Lining", ""), attr(" ", "x"),
			attr("Sole", "a\x00b"), map[string]any{"attribute": 5, "detail": "x"}, map[string]any{"attribute": "Size", "detail": nil},
			attr("Width", "\t"), attr("Care", "Machine wash\n30 °C")}},
			"attributes.1,attributes.2,attributes.3,attributes.4,attributes.5,attributes.6,attributes.7",
			`{"attributes":[{"attribute":"Color","detail":"Crimson"},{"attribute":"Care","detail":"Machine wash\n30 °C"}]}`},
		{"no attribute left", map[string]any{"name": "Kept", "attributes": []any{map[string]any{"attribute": "Fit"}}},
			"attributes", `{"name":"Kept"}`},
		{"files dropped on their own", map[string]any{"files": []string{"https://docs.example/a.pdf", " ", "b\x07"}},
			"files.1,files.2", `{"files":["https://docs.example/a.pdf"]}`},
		{"files that would not fit the product", map[string]any{"name": "N", "files": []string{long(600_000, "f"), long(600_000, "g")}},
			"files", `{"name":"N"}`},
		{"attributes that would not fit the product", map[string]any{"name": "N",
			"attributes": []any{attr("A", long(600_000, "a")), attr("B", long(600_000, "b"))}}, "attributes", `{"name":"N"}`},
	}
	var calls []call
	for _, r := range rows {
		r.item["sku"] = "SKU-1"
		body, err := json.Marshal(map[string]any{"items": []any{r.item}})
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, call{name: r.name, method: http.MethodPost, url: submitURL, key: f.A.Keys["submit"],
			body: string(body), status: 200,
			check: func(t testing.TB, app *tests.TestApp, raw []byte) {
				res := decode[[]result](t, raw)[0]
				// note: the item's members go out in map order
				got, want := slices.Sorted(slices.Values(res.IgnoredFields)), strings.FieldsFunc(r.ignored, func(c rune) bool { return c == ',' })
				if slices.Sort(want); !slices.Equal(got, want) {
					t.Errorf("ignoredFields %q, want %q", res.IgnoredFields, r.ignored)
				}
				if r.proposed == "" {
					if res.Status != "REJECTED_FIELDS" {
						t.Errorf("status %s, want REJECTED_FIELDS", res.Status)
					}
					return
				}
				if res.Status != "CREATED" {
					t.Fatalf("status %s, want CREATED", res.Status)
				}
				rev, err := app.FindRecordById("revisions", fmt.Sprint(*res.RevisionID))
				if err != nil {
					t.Fatal(err)
				}
				sameJSON(t, "proposed", rev.Get("proposed"), r.proposed)
			}})
	}
	run(t, f, calls)
}

// TestCreatedRevisionsCanBeAccepted is a property: random proposals, full
// of values a product cannot store (control characters, blanks, lengths
// around the limits, attributes without a name or detail, wrong types in
// attributes), go in as batches; every revision that comes back CREATED is
// then accepted by a reviewer, and every acceptance succeeds.
func TestCreatedRevisionsCanBeAccepted(t *testing.T) {
	f, app, h := served(t)
	token := fixture.ReviewerToken(t, app, string(f.A.Org))
	rng := rand.New(rand.NewPCG(14, 2026))
	skus := []string{"SKU-1", "SKU-M", "SKU-M-RED", "SKU-M-BLUE", "SKU-NEW"}
	for i := 1; i <= 40; i++ {
		skus = append(skus, fmt.Sprintf("BULK-%04d", i))
	}

	created, dropped := 0, 0
	for batch := range 12 {
		// note: distinct products in a batch, each batch decided before the
		// next: a client's newer proposal would supersede its older one
		items := make([]map[string]any, 25)
		for i, k := range rng.Perm(len(skus))[:len(items)] {
			items[i] = randomItem(rng, skus[k])
		}
		body, err := json.Marshal(map[string]any{"items": items})
		if err != nil {
			t.Fatal(err)
		}
		sub := request(h, http.MethodPost, submitURL, f.A.Keys["submit"], string(body))
		if sub.Code != 200 {
			t.Fatalf("batch %d: %d %.300s", batch, sub.Code, sub.Body)
		}
		for i, res := range decode[[]result](t, sub.Body.Bytes()) {
			dropped += len(res.IgnoredFields)
			if res.Status != "CREATED" {
				continue
			}
			created++
			url := fmt.Sprintf("/api/collections/revisions/records/%d", *res.RevisionID)
			if r := requestAuth(h, http.MethodPatch, url, token, `{"status":"accepted"}`); r.Code != 200 {
				item, _ := json.Marshal(items[i])
				t.Errorf("batch %d item %d was CREATED but cannot be accepted: %d %.400s\nitem: %.600s",
					batch, i, r.Code, r.Body, item)
			}
		}
	}
	// note: the generator must produce both kinds, or the property says little
	if created < 100 || dropped < 100 {
		t.Fatalf("only %d CREATED and %d dropped values: the generator misses the point", created, dropped)
	}
}

// randomItem proposes values for sku, each storable or not by chance.
func randomItem(rng *rand.Rand, sku string) map[string]any {
	item := map[string]any{"sku": sku}
	if rng.IntN(4) > 0 {
		item["confidence"] = rng.IntN(101)
	}
	for _, name := range []string{"name", "slug", "description"} {
		if rng.IntN(3) == 0 {
			continue
		}
		limit := 1000
		if name == "description" {
			limit = 100_000
		}
		item[name] = randomText(rng, limit)
	}
	if rng.IntN(3) > 0 {
		attrs := make([]any, rng.IntN(5))
		for i := range attrs {
			attrs[i] = randomAttribute(rng)
		}
		item["attributes"] = attrs
	}
	if rng.IntN(3) == 0 {
		files := make([]string, rng.IntN(4))
		for i := range files {
			files[i] = randomText(rng, 300)
		}
		item["files"] = files
	}
	return item
}

// randomAttribute is an attribute element that may lack its name or
// detail, carry the wrong type, or hold text a product cannot store. Names
// come from a few so that acceptances replace rather than pile up.
func randomAttribute(rng *rand.Rand) map[string]any {
	a := map[string]any{}
	value := func() any {
		switch rng.IntN(8) {
		case 0:
			return nil
		case 1:
			return rng.IntN(10)
		default:
			return randomText(rng, 60)
		}
	}
	if rng.IntN(6) > 0 {
		a["attribute"] = []any{"Color", "Size", "Fit", " ", "Care\x00", "Width"}[rng.IntN(6)]
		if rng.IntN(5) == 0 {
			a["attribute"] = value()
		}
	}
	if rng.IntN(6) > 0 {
		a["detail"] = value()
	}
	if rng.IntN(4) == 0 {
		a["option"] = nil
	}
	return a
}

// randomText is text around limit characters or short, sometimes blank,
// sometimes with a control character, tab or newline, some of it beyond
// ASCII.
func randomText(rng *rand.Rand, limit int) string {
	n := 1 + rng.IntN(40)
	switch rng.IntN(6) {
	case 0:
		n = limit - 2 + rng.IntN(5) // at the limit, give or take two
	case 1:
		n = rng.IntN(3)
	}
	pieces := []string{"a", "Z", "é", "漢", "😀", " ", "\t", "\n"}
	var b strings.Builder
	for range n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	s := []rune(b.String())
	if len(s) > 0 && rng.IntN(5) == 0 {
		s[rng.IntN(len(s))] = []rune{0, '\r', 0x1b, 0x7f, 0x85, 0x9f}[rng.IntN(6)]
	}
	return string(s)
}

// Proposed attributes that, merged into the product's, could outgrow what
// its attributes field holds are dropped too: accepting them would fail.
func TestAttributesThatCannotBeMergedAreDropped(t *testing.T) {
	f, app, h := served(t)
	big := `[{"attribute":"Notes","detail":"` + strings.Repeat("x", enrichment.MaxJSONFieldSize-200) + `"}]`
	if _, err := app.DB().Update("products", dbx.Params{"attributes": big},
		dbx.HashExp{"id": store.FormatID(f.A.Products["SKU-1"])}).Execute(); err != nil {
		t.Fatal(err)
	}
	attrs := `"attributes":[{"attribute":"Color","detail":"` + strings.Repeat("y", 300) + `"}]`
	res := request(h, http.MethodPost, submitURL+"?dryRun=true", f.A.Keys["both"], `{"items":[
		{"sku":"SKU-1",`+attrs+`},{"sku":"SKU-1","name":"Kept",`+attrs+`},{"sku":"SKU-M",`+attrs+`}]}`)
	got := decode[[]result](t, res.Body.Bytes())
	if res.Code != 200 || got[0].Status != "REJECTED_FIELDS" || !slices.Equal(got[0].IgnoredFields, []string{"attributes"}) ||
		got[1].Status != "CREATED" || !slices.Equal(got[1].IgnoredFields, []string{"attributes"}) ||
		got[2].Status != "CREATED" || len(got[2].IgnoredFields) != 0 {
		t.Errorf("%d %+v", res.Code, got)
	}
}
