package catalog_test

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/hooks"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/tests"
)

// BenchmarkImport imports a generated catalog of 20k products into a fresh
// data folder each round (the load harness measures 100k and 1M through
// the command line):
//
//	GOTOOLCHAIN=auto go test ./catalog -run '^$' -bench Import -cpuprofile import.prof
func BenchmarkImport(b *testing.B) {
	opt := gen.Bench()
	opt.Products = 20_000
	var file bytes.Buffer
	if err := gen.Write(&file, opt); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		app, err := tests.NewTestApp(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		hooks.Register(app)
		id, err := store.New(app).Accounts().CreateOrg("bench")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		_, err = catalog.Import(app, enrichment.Org(strconv.FormatInt(id, 10)), bytes.NewReader(file.Bytes()),
			catalog.Options{Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		app.Cleanup()
		b.StartTimer()
	}
	b.ReportMetric(float64(opt.Products)*float64(b.N)/b.Elapsed().Seconds(), "products/s")
}
