package gen_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// newOrg creates an organization to import into.
func newOrg(tb testing.TB, app core.App, name string) enrichment.Org {
	tb.Helper()
	id, err := store.New(app).Accounts().CreateOrg(name)
	if err != nil {
		tb.Fatal(err)
	}
	return enrichment.Org(store.FormatID(id))
}

// generated is a catalog written by the generator.
func generated(tb testing.TB, opt gen.Options) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := gen.Write(&buf, opt); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func TestImportGeneratedCatalog(t *testing.T) {
	app := fixture.Empty(t)
	org := newOrg(t, app, "Generated")
	data := generated(t, gen.Options{Products: 2000, Templates: 5, Brands: 20, Seed: 1})

	res, err := catalog.Import(app, org, bytes.NewReader(data), catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Templates != 5 || res.Brands != 20 || res.Created != 2000 || res.Updated != 0 {
		t.Fatalf("result %+v", res)
	}

	var check struct {
		Variants     int `db:"variants"`
		BadMasters   int `db:"badMasters"`
		Linked       int `db:"linked"`
		NoTemplate   int `db:"noTemplate"`
		WithStats    int `db:"withStats"`
		ProductCount int `db:"products"`
	}
	err = app.DB().NewQuery(`SELECT
		(SELECT COUNT(*) FROM products WHERE organization = {:org}) AS products,
		(SELECT COUNT(*) FROM products WHERE organization = {:org} AND variantMaster != '') AS variants,
		(SELECT COUNT(*) FROM products v LEFT JOIN products m ON m.id = v.variantMaster
			WHERE v.organization = {:org} AND v.variantMaster != '' AND (m.id IS NULL OR m.variantMaster != '' OR m.organization != v.organization)) AS badMasters,
		(SELECT COUNT(*) FROM products p, json_each(p.attributes) a
			WHERE p.organization = {:org} AND a.value ->> 'optionId' IS NOT NULL) AS linked,
		(SELECT COUNT(*) FROM products WHERE organization = {:org} AND attributeTemplate = '') AS noTemplate,
		(SELECT COUNT(*) FROM sqlite_stat1 WHERE tbl = 'products') AS withStats`).
		Bind(dbx.Params{"org": string(org)}).One(&check)
	if err != nil {
		t.Fatal(err)
	}
	if check.ProductCount != 2000 || check.Variants == 0 || check.BadMasters != 0 || check.Linked == 0 ||
		check.NoTemplate != 0 || check.WithStats == 0 {
		t.Errorf("after import: %+v", check)
	}

	// the re-import stamps a day later: a product it wrote would show it
	before := lastUpdate(t, app, org)
	later := func() time.Time { return time.Now().Add(24 * time.Hour) }
	res, err = catalog.Import(app, org, bytes.NewReader(data), catalog.Options{Now: later})
	if err != nil || res.Created != 0 || res.Updated != 0 || res.Unchanged != 2000 {
		t.Fatalf("re-import: %+v %v", res, err)
	}
	if after := lastUpdate(t, app, org); after != before {
		t.Errorf("the unchanged re-import moved update times: %s, then %s", before, after)
	}
}

// lastUpdate is the latest update time of org's products.
func lastUpdate(t *testing.T, app core.App, org enrichment.Org) string {
	t.Helper()
	var last string
	err := app.DB().NewQuery("SELECT MAX(updated) FROM products WHERE organization = {:org}").
		Bind(dbx.Params{"org": string(org)}).Row(&last)
	if err != nil {
		t.Fatal(err)
	}
	return last
}

// BenchmarkImport imports 20k generated products into a fresh organization
// per iteration and reports products/s.
func BenchmarkImport(b *testing.B) {
	const products = 20_000
	data := generated(b, gen.Options{Products: products, Templates: 20, Brands: 200, Seed: 1})
	app := fixture.Empty(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		b.StopTimer()
		org := newOrg(b, app, "Bench")
		b.StartTimer()
		if _, err := catalog.Import(app, org, bytes.NewReader(data), catalog.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(products*b.N)/b.Elapsed().Seconds(), "products/s")
}
