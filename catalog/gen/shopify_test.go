package gen_test

import (
	"bytes"
	"testing"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
)

func TestImportGeneratedShopifyCSV(t *testing.T) {
	opt := gen.Options{Products: 2000, Templates: 5, Brands: 20, Seed: 1}
	var a, b bytes.Buffer
	if err := gen.WriteShopifyCSV(&a, opt); err != nil {
		t.Fatal(err)
	}
	if err := gen.WriteShopifyCSV(&b, opt); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("the same options gave different files (%v)", err)
	}
	app := fixture.Empty(t)
	org := newOrg(t, app, "Generated shop")
	res, err := catalog.Import(app, org, bytes.NewReader(a.Bytes()), catalog.Options{Format: catalog.FormatShopifyCSV})
	if err != nil {
		t.Fatal(err)
	}
	if res.Created != 2000 || res.Brands != 20 {
		t.Fatalf("result %+v", res)
	}
	var variants int
	if err := app.DB().NewQuery(`SELECT COUNT(*) FROM products WHERE variantMaster != ''`).Row(&variants); err != nil || variants < 100 {
		t.Errorf("%d variants (%v): the file should hold families", variants, err)
	}
	if res, err := catalog.Import(app, org, bytes.NewReader(a.Bytes()), catalog.Options{Format: catalog.FormatShopifyCSV}); err != nil || res.Unchanged != 2000 {
		t.Errorf("the same file again: %+v %v", res, err)
	}
}
