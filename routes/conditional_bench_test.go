package routes_test

import (
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
)

// BenchmarkNotModified measures a revalidation that is answered 304: the
// key check, the generation read, the tag's comparison, no query of the
// answer itself (go test ./routes -run '^$' -bench NotModified).
func BenchmarkNotModified(b *testing.B) {
	f := fixture.Get(b)
	app := f.NewApp(b)
	defer app.Cleanup()
	h := handler(b, app)
	key := f.A.Keys["both"]
	for _, url := range []string{"/api/enrichment/products?pageSize=100", "/api/enrichment/attribute-templates"} {
		tag := get(h, url, key).Header().Get("ETag")
		b.Run(url, func(b *testing.B) {
			for b.Loop() {
				if res := get(h, url, key, "If-None-Match", tag); res.Code != 304 {
					b.Fatalf("%d", res.Code)
				}
			}
		})
	}
}
