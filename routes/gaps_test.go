package routes_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

const gapsURL = "/api/enrichment/gaps"

// In organization A (internal/fixture) every active product has a gap:
// 256 lack a description (the SKU-M family, the duplicates, SKU-NEW and
// the bulk products) and SKU-1 lacks only its Size, a slot of the Shoes
// template; so the list is those 256 by id, then SKU-1.
func TestGapsList(t *testing.T) {
	f := fixture.Get(t)
	skus := func(want ...string) func(t testing.TB, app *tests.TestApp, body []byte) {
		return func(t testing.TB, app *tests.TestApp, body []byte) {
			if got := decode[page](t, body).skus(); !slices.Equal(got, want) {
				t.Errorf("skus = %v, want %v", got, want)
			}
		}
	}
	shoes := func(app core.App) string { return lookupID(t, app, "attribute_templates", "name", "Shoes", f.A.Org) }
	read := f.A.Keys["read"]
	run(t, f, []call{
		{name: "the first page: most important gap first, then by id", url: gapsURL + "?pageSize=3", key: read, status: 200,
			check: func(t testing.TB, app *tests.TestApp, body []byte) {
				p := decode[page](t, body)
				if p.TotalElements != 257 || p.TotalPages != 86 || p.PageSize != 3 {
					t.Errorf("envelope = %+v", p)
				}
				sameJSON(t, "first", p.Items[0], fmt.Sprintf(`{"id":%d,"sku":"SKU-M","name":"Trail","completeness":0,
					"gaps":["description","images","attributes.Color","attributes.Size"]}`, f.A.Products["SKU-M"]))
				sameJSON(t, "second", p.Items[1], fmt.Sprintf(`{"id":%d,"sku":"SKU-M-RED","name":"Trail Red 42","completeness":50,
					"gaps":["description","images"]}`, f.A.Products["SKU-M-RED"]))
			}},
		{name: "the last page ends with the attribute gap", url: gapsURL + "?pageSize=3&page=85", key: read, status: 200,
			check: skus("BULK-0250", "SKU-1")},
		{name: "past the last page", url: gapsURL + "?pageSize=3&page=86", key: read, status: 200, content: []string{`"items":[]`, `"totalElements":257`}},
		{name: "by slot", url: gapsURL + "?slot=attributes.Size", key: read, status: 200, check: skus("SKU-M", "SKU-1")},
		{name: "by template name", url: gapsURL + "?template=Shoes", key: read, status: 200,
			check: skus("SKU-M", "SKU-M-RED", "SKU-M-BLUE", "SKU-1")},
		{name: "by brand and category", url: gapsURL + "?brand=Acme&category=Running", key: read, status: 200, check: skus("SKU-1")},
		{name: "a category nobody has", url: gapsURL + "?category=Boats", key: read, status: 200, content: []string{`"items":[]`, `"totalElements":0`}},
		{name: "an unknown template is refused", url: gapsURL + "?template=Boats", key: read, status: 400,
			content: []string{`"template":{"code":"validation_unknown_template"`}},
		{name: "a slot that is none", url: gapsURL + "?slot=color", key: read, status: 400,
			content: []string{`"slot":{"code":"validation_invalid_slot"`}},
		{name: "a submit-only key", url: gapsURL, key: f.A.Keys["submit"], status: 403, content: []string{`"status":403`}},
		{name: "no key", url: gapsURL, status: 401, content: []string{`"status":401`}},
		// tenancy
		{name: "B's key lists B's products only", url: gapsURL, key: f.B.Keys["read"], status: 200, check: skus("SKU-1", "B-ONLY")},
		{name: "B cannot filter by A's template name", url: gapsURL + "?template=Shoes", key: f.B.Keys["read"], status: 400,
			content: []string{`validation_unknown_template`}},
	})
	// B asking by A's template id
	app := f.NewApp(t)
	defer app.Cleanup()
	h := handler(t, app)
	if r := request(h, http.MethodGet, gapsURL+"?template="+shoes(app), f.B.Keys["read"], ""); r.Code != 400 {
		t.Errorf("B filtering by A's template id: %d %s", r.Code, r.Body)
	}
	if r := request(h, http.MethodGet, gapsURL+"?template="+shoes(app), read, ""); r.Code != 200 || len(decode[page](t, r.Body.Bytes()).Items) != 4 {
		t.Errorf("A filtering by its template id: %d %s", r.Code, r.Body)
	}
}

// TestGapsFollowTheirProducts: a reviewer's decision, a rollback, a save
// in the dashboard and an option's edit each move the list in their own
// transaction, and what the export says agrees with it.
func TestGapsFollowTheirProducts(t *testing.T) {
	f, app, h := served(t)
	key := f.A.Keys["both"]
	gaps := func(query string) page {
		t.Helper()
		r := request(h, http.MethodGet, gapsURL+"?"+query, key, "")
		if r.Code != 200 {
			t.Fatalf("gaps %s: %d %s", query, r.Code, r.Body)
		}
		return decode[page](t, r.Body.Bytes())
	}
	exported := func(sku string) map[string]any {
		t.Helper()
		r := request(h, http.MethodPost, "/api/enrichment/products/skus", key, `{"skus":["`+sku+`"]}`)
		return decode[page](t, r.Body.Bytes()).Items[0]
	}

	// a decision fills SKU-M's description and Size: its first gap is images now
	sub := request(h, http.MethodPost, submitURL, key, `{"items":[{"sku":"SKU-M","confidence":90,"description":"A trail shoe.",
		"attributes":[{"attribute":"Size","detail":"42"}]}]}`)
	rev := *decode[[]result](t, sub.Body.Bytes())[0].RevisionID
	token := fixture.ReviewerToken(t, app, string(f.A.Org))
	if r := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/revisions/records/%d", rev), token, `{"status":"accepted"}`); r.Code != 200 {
		t.Fatalf("accept: %d %s", r.Code, r.Body)
	}
	if got := gaps("slot=description").TotalElements; got != 255 {
		t.Errorf("products lacking a description after the decision: %d, want 255", got)
	}
	if got := gaps("slot=images&template=Shoes").skus(); !slices.Equal(got, []string{"SKU-M-RED", "SKU-M-BLUE", "SKU-M"}) {
		t.Errorf("Shoes lacking images: %v (SKU-M's first gap is images now, after those lacking a description)", got)
	}
	if p := exported("SKU-M"); fmt.Sprint(p["completeness"], p["gaps"]) != "50 [images attributes.Color]" {
		t.Errorf("export of SKU-M: %v %v", p["completeness"], p["gaps"])
	}
	if c := feedEntry(t, h, key, "SKU-M"); fmt.Sprintf("%v %v %v", c["change"], c["completeness"], c["gaps"]) != "upsert 50 [images attributes.Color]" {
		t.Errorf("change feed's SKU-M: %v", c)
	}

	// the client filled 2 of SKU-M's gaps: in all, in a window whose edges
	// are read from the revisions, and after a recount
	filled := func(query string) int {
		t.Helper()
		r := request(h, http.MethodGet, "/api/enrichment/acceptance-rate"+query, key, "")
		return decode[struct {
			SlotsFilled int `json:"slotsFilled"`
		}](t, r.Body.Bytes()).SlotsFilled
	}
	since := "?since=" + url.QueryEscape(time.Now().Add(-time.Minute).UTC().Format(time.RFC3339Nano))
	if a, w := filled(""), filled(since); a != 2 || w != 2 {
		t.Errorf("slotsFilled after the decision: %d in all, %d in the window; want 2", a, w)
	}
	if err := store.New(app).Metrics().RecountMetrics(f.A.Org); err != nil {
		t.Fatal(err)
	}
	if a := filled(""); a != 2 {
		t.Errorf("slotsFilled after a recount: %d", a)
	}

	// its rollback puts them back
	roll := requestAuth(h, http.MethodPost, "/api/enrichment/review/rollbacks", token, fmt.Sprintf(`{"revision":%d}`, rev))
	if roll.Code != 200 {
		t.Fatalf("rollback: %d %s", roll.Code, roll.Body)
	}
	if got := gaps("pageSize=1").skus(); !slices.Equal(got, []string{"SKU-M"}) || gaps("slot=description").TotalElements != 256 {
		t.Errorf("after the rollback: first %v, lacking a description %d", got, gaps("slot=description").TotalElements)
	}

	if a, w := filled(""), filled(since); a != 0 || w != 0 {
		t.Errorf("slotsFilled after the rollback: %d in all, %d in the window", a, w)
	}

	// the dashboard completes SKU-1: it leaves the list
	su := fixture.SuperuserToken(t, app)
	patch := fmt.Sprintf("/api/collections/products/records/%d", f.A.Products["SKU-1"])
	attrs := fmt.Sprintf(`[{"attribute":"Color","detail":"Red","optionId":%s},{"attribute":"Size","detail":"44"}]`,
		lookupID(t, app, "attribute_options", "attribute", "Color", f.A.Org))
	if r := requestAuth(h, http.MethodPatch, patch, su, `{"attributes":`+attrs+`}`); r.Code != 200 {
		t.Fatalf("save SKU-1: %d %s", r.Code, r.Body)
	} else if !strings.Contains(r.Body.String(), `"completeness":100`) || !strings.Contains(r.Body.String(), `"gaps":[]`) ||
		!strings.Contains(r.Body.String(), `"gapRank":""`) {
		t.Errorf("the saved record answers with its old completeness: %.300s", r.Body)
	}
	if p := gaps("template=Shoes"); slices.Contains(p.skus(), "SKU-1") || p.TotalElements != 3 {
		t.Errorf("after completing SKU-1: %v", p.skus())
	}
	if p := exported("SKU-1"); fmt.Sprint(p["completeness"], p["gaps"]) != "100 []" {
		t.Errorf("export of SKU-1: %v %v", p["completeness"], p["gaps"])
	}

	// Size no longer shown on the website: no product lacks it
	size := lookupID(t, app, "attribute_options", "attribute", "Size", f.A.Org)
	if r := requestAuth(h, http.MethodPatch, "/api/collections/attribute_options/records/"+size, su, `{"showOnWebsite":false}`); r.Code != 200 {
		t.Fatalf("hide Size: %d %s", r.Code, r.Body)
	}
	if p := gaps("slot=" + url.QueryEscape("attributes.Size")); p.TotalElements != 0 {
		t.Errorf("lacking Size after it was hidden: %v", p.skus())
	}
	if p := gaps("pageSize=1"); !strings.Contains(fmt.Sprint(p.Items[0]["gaps"]), "attributes.Color") ||
		strings.Contains(fmt.Sprint(p.Items[0]["gaps"]), "Size") {
		t.Errorf("SKU-M's gaps after Size was hidden: %v", p.Items[0]["gaps"])
	}

	// a deleted product leaves the list
	if r := requestAuth(h, http.MethodDelete, fmt.Sprintf("/api/collections/products/records/%d", f.A.Products["SKU-NEW"]), su, ""); r.Code != 204 {
		t.Fatalf("delete SKU-NEW: %d %s", r.Code, r.Body)
	}
	if got := gaps("").TotalElements; got != 255 {
		t.Errorf("after the deletion: %d with gaps, want 255", got)
	}
	if c := feedEntry(t, h, key, "SKU-NEW"); c["change"] != "remove" || c["completeness"] != nil || c["gaps"] != nil {
		t.Errorf("change feed's removal of SKU-NEW: %v", c)
	}
}

// feedEntry is the change feed's last entry of sku, from its start.
func feedEntry(t *testing.T, h http.Handler, key, sku string) map[string]any {
	t.Helper()
	r := request(h, http.MethodGet, "/api/enrichment/changes?limit=1000", key, "")
	var last map[string]any
	for _, c := range decode[struct {
		Items []map[string]any `json:"items"`
	}](t, r.Body.Bytes()).Items {
		if c["sku"] == sku {
			last = c
		}
	}
	if last == nil {
		t.Fatalf("no change of %s in %s", sku, r.Body)
	}
	return last
}
