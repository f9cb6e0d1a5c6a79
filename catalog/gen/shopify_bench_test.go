package gen_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
)

// BenchmarkShopifyImport imports a generated Shopify CSV of 20,000
// variants into an empty organization (the reading and the writing);
// BenchmarkShopifyExport writes it back out.
func BenchmarkShopifyImport(b *testing.B) {
	var file bytes.Buffer
	if err := gen.WriteShopifyCSV(&file, gen.Options{Products: 20_000, Templates: 20, Brands: 500, Seed: 42}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(file.Len()))
	for b.Loop() {
		b.StopTimer()
		app := fixture.Empty(b)
		org := newOrg(b, app, "Shop")
		b.StartTimer()
		if _, err := catalog.Import(app, org, bytes.NewReader(file.Bytes()), catalog.Options{Format: catalog.FormatShopifyCSV}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := catalog.Export(app, org, io.Discard, catalog.FormatShopifyCSV); err != nil {
			b.Fatal(err)
		}
		app.Cleanup()
		b.StartTimer()
	}
	b.ReportMetric(float64(20_000*b.N)/b.Elapsed().Seconds(), "products/s")
}
