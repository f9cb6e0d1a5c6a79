package catalog

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/pocketbase/core"
)

// productsAsStored renders org's product rows by externalId (all but the
// import's digest, which a re-import may set on a row it finds unchanged).
func productsAsStored(t *testing.T, app core.App, org enrichment.Org) map[string]productRow {
	t.Helper()
	out := byExternalID(t, app, org)
	for k, p := range out {
		p.ImportHash = ""
		out[k] = p
	}
	return out
}

func export(t *testing.T, app core.App, org enrichment.Org, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := Export(app, org, &b, format); err != nil {
		t.Fatalf("export %s: %v", format, err)
	}
	return b.Bytes()
}

// sameProducts fails unless the products are as they were, update times included.
func sameProducts(t *testing.T, before, after map[string]productRow) {
	t.Helper()
	if len(before) != len(after) {
		t.Fatalf("%d products, were %d", len(after), len(before))
	}
	for k, p := range before {
		if after[k] != p {
			t.Errorf("%s changed:\n was %+v\n now %+v", k, p, after[k])
		}
	}
}

func TestExportJSONRoundTrip(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Acme Retail")
	mustImportFile(t, app, org, "good.json") // templates, a family, an inactive variant, brands
	client := newClient(t, app, org)
	accept(t, app, org, client, "TEE-1", enrichment.Fields{Name: ptr("Classic Cotton Tee"), Description: ptr("<p>Soft.</p>"),
		Attributes: attrs(enrichment.StoredAttribute{Attribute: "Fabric", Detail: "Organic cotton"})})
	other := newOrg(t, app, "Other")
	mustImportFile(t, app, other, "update.json")

	file := export(t, app, org, FormatJSON)
	if !strings.Contains(string(file), `"name":"Classic Cotton Tee"`) || strings.Contains(string(file), "update") {
		t.Errorf("the export lacks the accepted value, or has another organization's products:\n%s", file)
	}
	before := productsAsStored(t, app, org)
	res := mustImport(t, app, org, string(file), Options{DeactivateMissing: true})
	if want := (Result{Templates: 2, Options: 3, Brands: 2, Unchanged: 5}); res != want {
		t.Errorf("re-import of the export: %+v, want %+v", res, want)
	}
	sameProducts(t, before, productsAsStored(t, app, org))

	// into an empty organization, the export gives the same catalog
	copyOrg := newOrg(t, app, "Copy")
	if res := mustImport(t, app, copyOrg, string(file), Options{}); res.Created != 5 {
		t.Fatalf("import into a new organization: %+v", res)
	}
	if again := export(t, app, copyOrg, FormatJSON); !bytes.Equal(again, file) {
		t.Errorf("the copy exports differently:\n%s\n---\n%s", again, file)
	}
}

func TestExportShopifyRoundTrip(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Northwind Shop")
	if _, err := importShopify(t, app, org, "shopify_export.csv"); err != nil {
		t.Fatal(err)
	}
	client := newClient(t, app, org)
	// a product without variants: every enriched field but the slug (the
	// handle stays) goes out; a variant's own description does not (the
	// product's body is its master's): both are kept on the way back in
	accept(t, app, org, client, "TEE-S-BLUE", enrichment.Fields{Description: ptr("<p>Blue, enriched.</p>")})
	accept(t, app, org, client, "APRON-1", enrichment.Fields{Name: ptr("Linen Apron, Natural"), Slug: ptr("linen-apron-natural"),
		Attributes: attrs(enrichment.StoredAttribute{Attribute: "Material", Detail: "Washed linen"})})

	file := export(t, app, org, FormatShopifyCSV)
	rows, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
	if err != nil {
		t.Fatalf("the export is not CSV: %v\n%s", err, file)
	}
	header := strings.Join(rows[0], "|")
	if want := "Handle|Title|Body (HTML)|Vendor|Product Category|Type|Published|Option1 Name|Option1 Value|Option2 Name|Option2 Value|" +
		"Option3 Name|Option3 Value|Variant SKU|Variant Barcode|Image Src|Image Position|Variant Image|Status|" +
		"Color (product.metafields.shopify.color-pattern)|Fabric (product.metafields.shopify.fabric)|" +
		"Size (product.metafields.custom.size)|Material (product.metafields.custom.material)"; header != want {
		t.Errorf("header\n got %s\nwant %s", header, want)
	}
	if xMetafields != len(shopifyExportColumns) || rows[0][xStatus] != colStatus || rows[0][xVariantImage] != colVariantImage {
		t.Errorf("the column positions do not match the header")
	}
	apron := strings.Join(rows[len(rows)-2], "|")
	if want := "linen-apron|Linen Apron, Natural|<p>Ties at the back.</p>|Northwind||Aprons|TRUE|Title|Default Title|||||APRON-1|4006381333948|" +
		"https://cdn.example/apron.jpg|1||active||Linen||Washed linen"; apron != want {
		t.Errorf("an enriched product\n got %s\nwant %s", apron, want)
	}

	before := productsAsStored(t, app, org)
	res := mustImport(t, app, org, string(file), Options{Format: FormatShopifyCSV, DeactivateMissing: true})
	if want := (Result{Brands: 2, Unchanged: 6, KeptEnriched: 2}); res != want {
		t.Errorf("re-import of the Shopify export: %+v, want %+v", res, want)
	}
	sameProducts(t, before, productsAsStored(t, app, org))
}

func TestExportShopifyOfAnyCatalog(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Acme Retail")
	mustImportFile(t, app, org, "good.json") // not from Shopify: externalIds ERP-*, templates, a family
	mustImport(t, app, org, `{"products": [{"sku": "NONAME-1"}]}`, Options{})
	file := export(t, app, org, FormatShopifyCSV)

	shop := newOrg(t, app, "Shop")
	res := mustImport(t, app, shop, string(file), Options{Format: FormatShopifyCSV})
	if res.Created != 6 {
		t.Fatalf("the export of a catalog that did not come from Shopify, imported as Shopify CSV: %+v\n%s", res, file)
	}
	ps := products(t, app, shop)
	run, red := ps["RUN"], ps["RUN-42-RED"]
	if red.VariantMaster != run.ID || run.VariantAttributes.String != `["Color","Size"]` || ps["NONAME-1"].Name != "NONAME-1" {
		t.Errorf("families or titles lost: %+v\n%+v", run, red)
	}
}

// TestReimportOfDashboardProduct: a product saved through the records API
// without its JSON fields (stored NULL) is exported and imported back
// like any other: unchanged, its values kept.
func TestReimportOfDashboardProduct(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Shop")
	products, err := app.FindCollectionByNameOrId("products")
	if err != nil {
		t.Fatal(err)
	}
	rec := core.NewRecord(products)
	rec.Load(map[string]any{"organization": string(org), "sku": "HAND-1", "name": "Made by hand", "active": true})
	if err := app.Save(rec); err != nil {
		t.Fatal(err)
	}
	var nulls int
	if err := app.DB().NewQuery("SELECT COUNT(*) FROM products WHERE attributes IS NULL AND images IS NULL").Row(&nulls); err != nil || nulls != 1 {
		t.Fatalf("%d products with NULL JSON fields, want the one saved (%v)", nulls, err)
	}
	for _, format := range []string{FormatJSON, FormatShopifyCSV} {
		opts := Options{}
		if format == FormatShopifyCSV {
			opts.Format = FormatShopifyCSV
		}
		res := mustImport(t, app, org, string(export(t, app, org, format)), opts)
		if res.Created != 0 || res.Updated+res.Unchanged != 1 {
			t.Errorf("%s: re-import of the export: %+v", format, res)
		}
	}
	got := byExternalID(t, app, org)
	if len(got) != 1 {
		t.Fatalf("%d products after the re-imports", len(got))
	}
	for _, p := range got {
		if p.SKU != "HAND-1" || p.Name != "Made by hand" {
			t.Errorf("after the re-imports: %+v", p)
		}
	}
}
