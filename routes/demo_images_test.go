package routes_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
)

// TestDemoImages checks the demo's image route: an SVG for every well-formed
// name, the same each time and cached for a day, 404 for anything else, and
// no such route on a service that is not the demo.
func TestDemoImages(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	defer app.Cleanup()
	routes.RegisterDemoImages(app)
	h := handler(t, app)
	get := func(h http.Handler, name string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, gen.DemoImages+name, nil))
		return rec
	}

	scenarios := []struct {
		name   string
		status int
	}{
		{"SKU-000001-1.svg", 200},
		{"SKU-000299-5.svg", 200},
		{"sku.svg", 200},
		{"SKU-000001-1.jpg", 404},
		{"SKU-000001-1.svg.png", 404},
		{"%3Cscript%3E.svg", 404},
		{"a%20b.svg", 404},
		{strings.Repeat("A", 121) + ".svg", 404},
		{"", 404},
	}
	for _, s := range scenarios {
		rec := get(h, s.name)
		if rec.Code != s.status {
			t.Errorf("%q: status %d, want %d", s.name, rec.Code, s.status)
			continue
		}
		if s.status != 200 {
			continue
		}
		hd := rec.Header()
		if hd.Get("Content-Type") != "image/svg+xml" || hd.Get("Cache-Control") != "public, max-age=86400" ||
			hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("Content-Security-Policy") != "default-src 'none'" {
			t.Errorf("%q: headers %v", s.name, hd)
		}
		body := rec.Body.String()
		if !strings.HasPrefix(body, "<svg ") || !strings.Contains(body, ">"+strings.TrimSuffix(s.name, ".svg")+"</text>") || len(body) > 1000 {
			t.Errorf("%q: %d bytes: %s", s.name, len(body), body)
		}
		if again := get(h, s.name).Body.String(); again != body {
			t.Errorf("%q: another picture the second time", s.name)
		}
	}
	if a, b := get(h, "SKU-000001-1.svg").Body.String(), get(h, "SKU-000001-2.svg").Body.String(); a == b {
		t.Error("two images of a product are the same picture")
	}

	plain := f.NewApp(t)
	defer plain.Cleanup()
	if rec := get(handler(t, plain), "SKU-000001-1.svg"); rec.Code != 404 {
		t.Errorf("the service without the demo serves its images: %d", rec.Code)
	}
}
