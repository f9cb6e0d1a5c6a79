package routes_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tests"
)

// readRoutes are the catalog:read routes with a valid request each, and
// what only organization A's answer holds and what only B's holds.
var readRoutes = []struct{ method, url, body, a, b string }{
	{http.MethodGet, "/api/enrichment/attribute-templates", "", `"name":"Shoes"`, `"name":"Drills"`},
	{http.MethodGet, "/api/enrichment/products", "", `"name":"Runner"`, `"name":"Beta drill"`},
	{http.MethodPost, "/api/enrichment/products/skus", `{"skus":["SKU-1"]}`, `"name":"Runner"`, `"name":"Beta drill"`},
}

func TestKeyMiddleware(t *testing.T) {
	f := fixture.Get(t)
	var calls []call
	for _, r := range readRoutes {
		base := call{method: r.method, url: r.url, body: r.body}
		add := func(name, key string, status int, content ...string) {
			c := base
			c.name, c.key, c.status, c.content = r.method+" "+r.url+": "+name, key, status, content
			calls = append(calls, c)
		}
		// the answer of org's key: its own data, none of the other's
		own := func(name, key, mine, theirs string) {
			add(name, key, 200, mine)
			calls[len(calls)-1].absent = []string{theirs}
		}
		add("no key", "", 401, `"status":401`, "X-Api-Client-Key")
		add("unknown key", "cek_not-a-real-key", 401, `"status":401`, "Invalid or inactive API key.")
		add("revoked key", f.A.Keys["revoked"], 401, "Invalid or inactive API key.")
		add("key of the other scope", f.A.Keys["submit"], 403, `"message":"Missing required scope: catalog:read"`, `"status":403`)
		own("read key", f.A.Keys["read"], r.a, r.b)
		own("key with both scopes", f.A.Keys["both"], r.a, r.b)
		own("other organization's key", f.B.Keys["read"], r.b, r.a)
	}
	run(t, f, calls)
}

// TestKeyInQueryString: a key sent in the URL instead of the header is
// refused, with a message that says where it goes and to rotate it (the
// request log never shows it: TestKeysNotInRequestLogs).
func TestKeyInQueryString(t *testing.T) {
	f := fixture.Get(t)
	run(t, f, []call{
		{name: "key as a query parameter", url: exportURL + "?X-Api-Client-Key=" + f.A.Keys["read"], status: 401,
			content: []string{"never in the URL", "rotate this key"}},
		{name: "key in another parameter", url: exportURL + "?page=0&apiKey=" + f.A.Keys["read"], status: 401,
			content: []string{"never in the URL"}},
	})
}

func TestUnknownPathsAndMethods(t *testing.T) {
	f := fixture.Get(t)
	run(t, f, []call{
		{name: "unknown path without key", url: "/api/enrichment/nope", status: 404, content: []string{`"status":404`}},
		{name: "the prefix itself", url: "/api/enrichment", status: 404, content: []string{`"message":"No such endpoint."`}},
		{name: "the prefix with its slash", url: "/api/enrichment/", status: 404, content: []string{`"status":404`}},
		{name: "unknown path with key", url: "/api/enrichment/products/123", key: f.A.Keys["read"], status: 404,
			content: []string{`"status":404`, `"message":"No such endpoint."`}},
		{name: "GET on the POST-only lookup", url: "/api/enrichment/products/skus", key: f.A.Keys["read"], status: 405,
			content: []string{`"status":405`, "POST"}},
		{name: "DELETE on the export", method: http.MethodDelete, url: "/api/enrichment/products", status: 405,
			content: []string{`"status":405`, `"message":"Method not allowed; use GET."`}},
		{name: "POST on templates", method: http.MethodPost, url: "/api/enrichment/attribute-templates", body: "{}", status: 405,
			content: []string{`"status":405`, `"message":"Method not allowed; use GET."`}},
	})
}

func TestBodyLimit(t *testing.T) {
	f := fixture.Get(t)
	huge := `{"skus":["` + strings.Repeat("x", 70<<10) + `"]}`
	run(t, f, []call{
		{name: "lookup body over 64 KiB", method: http.MethodPost, url: "/api/enrichment/products/skus",
			key: f.A.Keys["read"], body: huge, status: 413,
			content: []string{`"status":413`, `"message":"Request entity too large."`}},
	})
}

func TestLastUsedAt(t *testing.T) {
	f, app, h := served(t)
	id := f.A.Clients["read"]
	lastUsed := func() string {
		var v string
		err := app.DB().Select("lastUsedAt").From("api_clients").Where(dbx.HashExp{"id": store.FormatID(id)}).Row(&v)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	use := func() {
		if res := request(h, http.MethodGet, "/api/enrichment/attribute-templates", f.A.Keys["read"], ""); res.Code != 200 {
			t.Fatalf("status %d: %s", res.Code, res.Body)
		}
	}

	if v := lastUsed(); v != "" {
		t.Fatalf("fixture key already used at %s", v)
	}
	use()
	first := lastUsed()
	if first == "" {
		t.Fatal("first use not recorded at once")
	}
	use()
	if got := lastUsed(); got != first {
		t.Errorf("lastUsedAt rewritten within 30 s: %s -> %s", first, got)
	}
	// 31 s pass: the stored use is older, and (as the key cache knows the
	// use it recorded) the cached client is reloaded, here by a rename
	stale := store.FormatTime(clock.Now(app).Add(-31 * time.Second))
	if _, err := app.DB().Update("api_clients", dbx.Params{"lastUsedAt": stale, "name": "renamed"}, dbx.HashExp{"id": store.FormatID(id)}).Execute(); err != nil {
		t.Fatal(err)
	}
	use()
	if got := lastUsed(); got <= stale {
		t.Errorf("lastUsedAt not refreshed after 30 s: still %s", got)
	}
}

func TestKeyHashNeverInRecordsAPI(t *testing.T) {
	f := fixture.Get(t)
	for _, url := range []string{
		"/api/collections/api_clients/records",
		"/api/collections/api_clients/records/" + store.FormatID(f.A.Clients["read"]),
	} {
		s := &tests.ApiScenario{
			Name: "superuser " + url, Method: http.MethodGet, URL: url, ExpectedStatus: 200,
			ExpectedContent:    []string{`"keyPrefix":"cek_`},
			NotExpectedContent: []string{"keyHash", `"organization":""`},
		}
		s.TestAppFactory = func(tb testing.TB) *tests.TestApp {
			app := f.NewApp(tb)
			s.Headers = map[string]string{"Authorization": fixture.SuperuserToken(tb, app)}
			return app
		}
		s.Test(t)
	}
}
