package browser

import (
	"bytes"
	"encoding/json/v2"
	"strings"
	"sync"
	"testing"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/chromedp/chromedp"
	"github.com/pocketbase/pocketbase/core"
)

// TestDemoImages: a product with the demo catalog's images shows its
// picture, served by the demo's own route, with no error in the console
// (offline, the demo's images were broken before); an image URL of another
// scheme (javascript:, data:) is never loaded.
func TestDemoImages(t *testing.T) {
	s := newService(t, routes.RegisterDemoImages)
	images := demoImages(t)
	runner := s.product(s.f.A, "SKU-1")
	runner.Set("images", images)
	hostile := s.product(s.f.A, "SKU-NEW")
	hostile.Set("images", []string{"javascript:alert(1)", "data:image/svg+xml,<svg/>"})
	for _, p := range []*core.Record{runner, hostile} {
		if err := s.app.Save(p); err != nil {
			t.Fatal(err)
		}
	}
	ids := s.submit(s.f.A, "both", names("SKU-1", "SKU-NEW")...)
	s.addReviewer(s.f.A.Org, "ann@alpha.example")

	ctx := newTab(t)
	var mu sync.Mutex
	var errs []string
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				errs = append(errs, m.Text)
				mu.Unlock()
			}
		}
	}()
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	waitFor(t, ctx, "the demo image, or its replacement", `document.querySelector('#product-context img.thumb')?.complete ||
		document.querySelector('#product-context .thumb.none')`)
	if got := eval[string](t, ctx, `document.querySelector('#product-context img.thumb')?.getAttribute('src') ?? 'no image'`); got != images[0] {
		t.Errorf("the thumbnail shows %q, want the demo's %q", got, images[0])
	}
	if w := eval[int](t, ctx, `document.querySelector('#product-context img.thumb')?.naturalWidth ?? 0`); w == 0 {
		t.Error("the demo's image did not load (naturalWidth 0)")
	}
	screenshot(t, ctx, "demo-image")

	openRevision(t, ctx, ids[1])
	if eval[bool](t, ctx, `!!document.querySelector('#product-context img') || !document.querySelector('#product-context .thumb.none')`) {
		t.Errorf("a javascript: or data: image is shown: %s", eval[string](t, ctx, `document.querySelector('#product-context').innerHTML`))
	}
	if n := s.statuses.requests("GET " + gen.DemoImages); n == 0 {
		t.Error("no request for the demo's image reached the server")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(errs) > 0 {
		t.Errorf("console errors: %s", strings.Join(errs, "; "))
	}
}

// demoImages are the images of the demo catalog's first product.
func demoImages(t *testing.T) []string {
	t.Helper()
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Demo()); err != nil {
		t.Fatal(err)
	}
	var c struct {
		Products []struct {
			Images []string `json:"images"`
		} `json:"products"`
	}
	if err := json.Unmarshal(buf.Bytes(), &c); err != nil {
		t.Fatalf("the demo catalog: %v", err)
	}
	return c.Products[0].Images
}
