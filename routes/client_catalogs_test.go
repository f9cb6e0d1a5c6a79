package routes_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/tests"
)

// selectedClient creates an API client of organization A that sees only
// sel, with both scopes and no rate limit; it returns its id and key.
func selectedClient(t *testing.T, app *tests.TestApp, sel enrichment.Selection) (int64, string) {
	t.Helper()
	key := apikey.New("")
	id, err := store.New(app).Accounts().CreateClient(fixture.Get(t).A.Org, store.NewClient{Name: "brand's supplier",
		Scopes: enrichment.Scopes, KeyHash: key.Hash, KeyPrefix: key.Shown, Catalog: sel})
	if err != nil {
		t.Fatal(err)
	}
	return id, key.Raw
}

// TestClientCatalogs: a client that sees only the Shoes template (the
// SKU-1 product and the SKU-M family of organization A) reaches nothing
// else by any route: pages, totals, the lookup, the gaps, a submission,
// the change feed.
func TestClientCatalogs(t *testing.T) {
	f, app, h := served(t)
	_, key := selectedClient(t, app, enrichment.Selection{Templates: []string{"Shoes"}})
	list := func(url string) page {
		t.Helper()
		r := request(h, http.MethodGet, url, key, "")
		if r.Code != 200 {
			t.Fatalf("%s: %d %s", url, r.Code, r.Body)
		}
		return decode[page](t, r.Body.Bytes())
	}
	shoes := []string{"SKU-1", "SKU-M", "SKU-M-RED", "SKU-M-BLUE"}
	if p := list(exportURL); !slices.Equal(p.skus(), shoes) || p.TotalElements != 4 || p.TotalPages != 1 {
		t.Errorf("export: %v, %d in %d pages", p.skus(), p.TotalElements, p.TotalPages)
	}
	if p := list(exportURL + "?pageSize=3&page=1"); !slices.Equal(p.skus(), []string{"SKU-M-BLUE"}) {
		t.Errorf("second page of 3: %v", p.skus())
	}
	if p := list(exportURL + "?modifiedSince=2020-01-01T00:00:00Z"); !slices.Equal(p.skus(), shoes) {
		t.Errorf("export modified since: %v", p.skus())
	}
	if p := list(gapsURL); p.TotalElements != 4 || slices.ContainsFunc(p.skus(), func(s string) bool { return !slices.Contains(shoes, s) }) {
		t.Errorf("gaps: %v", p.skus())
	}
	look := request(h, http.MethodPost, "/api/enrichment/products/skus", key, `{"skus":["SKU-1","SKU-NEW","BULK-0001"]}`)
	if p := decode[page](t, look.Body.Bytes()); !slices.Equal(p.skus(), []string{"SKU-1"}) {
		t.Errorf("lookup: %s", look.Body)
	}
	sub := request(h, http.MethodPost, submitURL+"?dryRun=true", key, `{"items":[{"sku":"SKU-1","name":"Runner Pro"},{"sku":"SKU-NEW","name":"Other"}]}`)
	if res := decode[[]result](t, sub.Body.Bytes()); len(res) != 2 || res[0].Status != "CREATED" || res[1].Status != "UNMATCHED" {
		t.Errorf("submission: %s", sub.Body)
	}
	feed := request(h, http.MethodGet, "/api/enrichment/changes?limit=1000", key, "")
	for _, other := range []string{"SKU-NEW", "SKU-DUP", "BULK-0001"} {
		if strings.Contains(feed.Body.String(), `"`+other+`"`) {
			t.Errorf("the change feed shows %s: %s", other, feed.Body)
		}
	}
	// the same URL with a key of the whole catalog never shares the tag
	tag := request(h, http.MethodGet, exportURL, key, "").Header().Get("ETag")
	whole := get(h, exportURL, f.A.Keys["read"], "If-None-Match", tag)
	if whole.Code != 200 || len(decode[page](t, whole.Body.Bytes()).Items) != 100 {
		t.Errorf("a whole-catalog key sent the selected client's tag: %d", whole.Code)
	}
}

// TestClientCatalogChangeFeed: the feed of a selected client shows a
// product entering its selection as an upsert and one leaving it as a
// removal, whether the product changed or the selection did, and nothing
// of the products it never saw.
func TestClientCatalogChangeFeed(t *testing.T) {
	f, app, h := served(t)
	id, key := selectedClient(t, app, enrichment.Selection{Categories: []string{"Running"}})
	su := fixture.SuperuserToken(t, app)
	feed := func(after string) (map[string]string, string) {
		t.Helper()
		url := "/api/enrichment/changes?limit=1000"
		if after != "" {
			url += "&after=" + after
		}
		r := request(h, http.MethodGet, url, key, "")
		body := decode[struct {
			Items []struct {
				SKU    string `json:"sku"`
				Change string `json:"change"`
			} `json:"items"`
			Next string `json:"next"`
		}](t, r.Body.Bytes())
		out := map[string]string{}
		for _, c := range body.Items {
			out[c.SKU] = c.Change
		}
		return out, body.Next
	}
	_, cursor := feed("")
	patch := func(sku, body string) {
		t.Helper()
		r := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/products/records/%d", f.A.Products[sku]), su, body)
		if r.Code != 200 {
			t.Fatalf("patch %s: %d %s", sku, r.Code, r.Body)
		}
	}
	// SKU-NEW enters (now in Running), SKU-1 leaves (no longer), BULK-0001 changes outside it
	patch("SKU-NEW", `{"categories":["Running"]}`)
	patch("SKU-1", `{"categories":["Shoes"]}`)
	patch("BULK-0001", `{"name":"Bulk renamed"}`)
	got, cursor := feed(cursor)
	if want := map[string]string{"SKU-NEW": "upsert", "SKU-1": "remove"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after the products changed: %v, want %v", got, want)
	}
	wholeCursor := decode[struct {
		Next string `json:"next"`
	}](t, request(h, http.MethodGet, "/api/enrichment/changes?limit=1000", f.A.Keys["read"], "").Body.Bytes()).Next
	// the selection widens to Shoes too: SKU-1 comes back; narrowing to
	// nothing but Shoes takes SKU-NEW out
	if _, err := store.New(app).Accounts().SelectCatalog(id, enrichment.Selection{Categories: []string{"Running", "Shoes"}}); err != nil {
		t.Fatal(err)
	}
	got, cursor = feed(cursor)
	if want := map[string]string{"SKU-1": "upsert"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after widening: %v, want %v", got, want)
	}
	if _, err := store.New(app).Accounts().SelectCatalog(id, enrichment.Selection{Categories: []string{"Shoes"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ = feed(cursor); fmt.Sprint(got) != fmt.Sprint(map[string]string{"SKU-NEW": "remove"}) {
		t.Errorf("after narrowing: %v", got)
	}
	// other clients see none of the selection's own rows
	if r := request(h, http.MethodGet, "/api/enrichment/changes?limit=1000&after="+wholeCursor, f.A.Keys["read"], ""); strings.Contains(r.Body.String(), "SKU-NEW") {
		t.Errorf("another client sees the selection's change")
	}
}

// TestClientCatalogRefused: a selection naming what the organization does
// not have is refused with the name, through the records API and the
// store alike; a stored selection's deleted template does not stop a
// rotation.
func TestClientCatalogRefused(t *testing.T) {
	f, app, h := served(t)
	id, _ := selectedClient(t, app, enrichment.Selection{Brands: []string{"Acme"}})
	su := fixture.SuperuserToken(t, app)
	for _, c := range []struct{ body, want string }{
		{`{"catalog":{"templates":["Drills"]}}`, `The catalog names the template \"Drills\", which this organization does not have`},
		{`{"catalog":{"brands":["Nope"]}}`, `validation_unknown_brand`},
		{`{"catalog":{"categories":["Boats"]}}`, `no product of this organization is in`},
		{`{"catalog":{"template":["Shoes"]}}`, `validation_invalid_catalog`},
		{`{"catalog":{"brands":[1.5]}}`, `validation_invalid_catalog`},
		{`{"catalog":{"brands":[true]}}`, `validation_invalid_catalog`},
	} {
		r := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/api_clients/records/%d", id), su, c.body)
		if r.Code != 400 || !strings.Contains(r.Body.String(), c.want) {
			t.Errorf("%s: %d %s", c.body, r.Code, r.Body)
		}
	}
	r := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/api_clients/records/%d", id), su, `{"catalog":{"templates":["Shoes"],"brands":["Acme"]}}`)
	if r.Code != 200 || !strings.Contains(r.Body.String(), fmt.Sprintf(`"templates":["%s"]`, lookupID(t, app, "attribute_templates", "name", "Shoes", f.A.Org))) {
		t.Errorf("a selection by names is stored by id: %d %s", r.Code, r.Body)
	}
	// an id as the API shows it, a JSON integer, is taken as its string
	shoes := lookupID(t, app, "attribute_templates", "name", "Shoes", f.A.Org)
	r = requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/api_clients/records/%d", id), su, `{"catalog":{"templates":[`+shoes+`]}}`)
	if r.Code != 200 || !strings.Contains(r.Body.String(), fmt.Sprintf(`"templates":["%s"]`, shoes)) {
		t.Errorf("a selection by integer id: %d %s", r.Code, r.Body)
	}
	if _, err := store.New(app).Accounts().SelectCatalog(id, enrichment.Selection{Templates: []string{"Drills"}}); err == nil ||
		!strings.Contains(err.Error(), `"Drills"`) {
		t.Errorf("apikey select of B's template: %v", err)
	}
	// the selected template goes away behind the service's back: the key still rotates
	if _, err := app.DB().NewQuery("DELETE FROM attribute_templates WHERE name = 'Shoes'").Execute(); err != nil {
		t.Fatal(err)
	}
	next := apikey.New("")
	if _, err := store.New(app).Accounts().RotateKey(id, next.Hash, next.Shown, 0); err != nil {
		t.Errorf("rotating the key of a client whose selected template is gone: %v", err)
	}
}
