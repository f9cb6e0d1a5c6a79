package routes_test

import (
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
)

// TestTagsBelongToTheirURL checks that a tag is confirmed only for the URL
// (path and query) and organization it was sent for: a client keeping one
// tag per endpoint must never be told that another page, page size,
// modifiedSince or route is the answer it holds.
func TestTagsBelongToTheirURL(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	defer app.Cleanup()
	h := handler(t, app)
	key := f.A.Keys["both"]
	cases := []struct{ from, to string }{
		{"/api/enrichment/products?page=0&pageSize=1", "/api/enrichment/products?page=1&pageSize=1"},
		{"/api/enrichment/products?page=0&pageSize=1", "/api/enrichment/products?page=0&pageSize=2"},
		{"/api/enrichment/products", "/api/enrichment/products?modifiedSince=0"},
		{"/api/enrichment/products", "/api/enrichment/attribute-templates"},
		{"/api/enrichment/attribute-templates", "/api/enrichment/products"},
		// answers that are the same data (empty pages, an empty window)
		{"/api/enrichment/revisions?page=50", "/api/enrichment/revisions?page=51"},
		{"/api/enrichment/acceptance-rate?since=2001-01-01T00:00:00Z&until=2001-01-02T00:00:00Z",
			"/api/enrichment/acceptance-rate?since=2001-01-03T00:00:00Z&until=2001-01-04T00:00:00Z"},
	}
	for _, c := range cases {
		first := get(h, c.from, key)
		tag := first.Header().Get("ETag")
		if first.Code != 200 || tag == "" {
			t.Fatalf("%s: %d, ETag %q", c.from, first.Code, tag)
		}
		if res := get(h, c.to, key, "If-None-Match", tag); res.Code != 200 {
			t.Errorf("%s with the tag of %s: %d, want 200", c.to, c.from, res.Code)
		}
	}
	// the same empty page of another organization is another answer
	const empty = "/api/enrichment/revisions?page=50"
	tag := get(h, empty, key).Header().Get("ETag")
	if res := get(h, empty, f.B.Keys["both"], "If-None-Match", tag); res.Code != 200 {
		t.Errorf("B with A's tag of %s: %d, want 200", empty, res.Code)
	}
}
