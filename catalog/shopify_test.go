package catalog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

func importShopify(t *testing.T, app core.App, org enrichment.Org, name string) (Result, error) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Import(app, org, f, Options{Format: FormatShopifyCSV})
}

// byExternalID returns org's products by externalId.
func byExternalID(t *testing.T, app core.App, org enrichment.Org) map[string]productRow {
	t.Helper()
	var rows []productRow
	if err := app.DB().Select("*").From("products").Where(dbx.HashExp{"organization": string(org)}).All(&rows); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]productRow, len(rows))
	for _, r := range rows {
		out[r.ExternalID] = r
	}
	return out
}

func TestShopifyImportExportFile(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Northwind Shop")

	res, err := importShopify(t, app, org, "shopify_export.csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Result{Brands: 2, Created: 6}); res != want {
		t.Fatalf("result %+v, want %+v", res, want)
	}
	ps := byExternalID(t, app, org)
	if len(ps) != 6 {
		t.Fatalf("%d products: %v", len(ps), ps)
	}
	red, blue, noSKU := ps["classic-tee/TEE-S-RED"], ps["classic-tee/TEE-S-BLUE"], ps["classic-tee/M/Red"]
	tote, gift := ps["canvas-tote"], ps["gift-tote"]

	// the HTML body as it is, its CRLF line ends read as the cell's line breaks
	wantBody := "<p>Our <strong>classic</strong> tee, cut from \"organic\" cotton.</p>\n<ul>\n  <li>Soft, breathable</li>\n  <li>Machine wash, cold</li>\n</ul>"
	for _, p := range []productRow{red, blue, noSKU} {
		if p.Name != "Classic Tee" || p.Slug != "classic-tee" || p.Description != wantBody || !p.Active ||
			p.Categories != `["Apparel & Accessories > Clothing > Shirts & Tops","T-Shirts"]` || p.Brand == "" || p.Brand != red.Brand {
			t.Errorf("product-level fields of %s: %+v", p.ExternalID, p)
		}
	}
	// options first, then metafields, a label that is an option's name taken by NS.KEY
	if want := `[{"attribute":"Size","detail":"S"},{"attribute":"Color","detail":"Red"},{"attribute":"shopify.color-pattern","detail":"Red; Blue"},` +
		`{"attribute":"Fabric","detail":"Organic cotton"},{"attribute":"custom.size","detail":"Regular fit"}]`; red.Attributes != want {
		t.Errorf("attributes\n got %s\nwant %s", red.Attributes, want)
	}
	if red.SKU != "TEE-S-RED" || red.GTIN != "0012345000011" || red.VariantMaster != "" || red.VariantAttributes.String != `["Size","Color"]` {
		t.Errorf("master %+v", red)
	}
	// every image of the handle (the image-only row's too), then the variant's own
	if want := `["https://cdn.example/tee-front.jpg","https://cdn.example/tee-back.jpg","https://cdn.example/tee-side.jpg","https://cdn.example/tee-red.jpg"]`; red.Images != want {
		t.Errorf("images of the master\n got %s\nwant %s", red.Images, want)
	}
	if want := `["https://cdn.example/tee-front.jpg","https://cdn.example/tee-back.jpg","https://cdn.example/tee-side.jpg","https://cdn.example/tee-blue.jpg"]`; blue.Images != want {
		t.Errorf("images of a variant\n got %s\nwant %s", blue.Images, want)
	}
	if blue.VariantMaster != red.ID || noSKU.VariantMaster != red.ID || blue.VariantAttributes.Valid || blue.GTIN != "0012345000028" {
		t.Errorf("variants: %+v\n%+v", blue, noSKU)
	}
	// a variant without a SKU takes its externalId as SKU
	if noSKU.SKU != "classic-tee/M/Red" || noSKU.GTIN != "" || !strings.HasPrefix(noSKU.Attributes, `[{"attribute":"Size","detail":"M"},{"attribute":"Color","detail":"Red"},`) {
		t.Errorf("variant without SKU: %+v", noSKU)
	}
	// default variants: the product itself, by handle; two handles share a SKU
	if tote.SKU != "BAG-1" || gift.SKU != "BAG-1" || tote.Active || !gift.Active || tote.VariantAttributes.Valid ||
		tote.Attributes != `[]` || tote.Categories != `["Bags"]` || tote.GTIN != "4006381333931" || tote.Images != `["https://cdn.example/tote.jpg"]` ||
		gift.Images != `[]` || gift.Description != "" || tote.Brand != gift.Brand || tote.Brand == red.Brand {
		t.Errorf("default variants:\n%+v\n%+v", tote, gift)
	}

	// the same file again writes nothing
	before := snapshot(t, app)
	res, err = importShopify(t, app, org, "shopify_export.csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Result{Brands: 2, Unchanged: 6}); res != want {
		t.Fatalf("second import %+v, want %+v", res, want)
	}
	if after := snapshot(t, app); after != before {
		t.Errorf("the second import changed the database:\n%s\n---\n%s", before, after)
	}
}

func TestShopifyImportSingleProduct(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Kiln Works")
	res, err := importShopify(t, app, org, "shopify_single.csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Result{Brands: 1, Created: 1}); res != want {
		t.Fatalf("result %+v, want %+v", res, want)
	}
	mug := byExternalID(t, app, org)["stoneware-mug"]
	if mug.SKU != "stoneware-mug" || mug.Name != "Stoneware Mug" || mug.Description != "<p>Holds 350 ml.</p>" || !mug.Active ||
		mug.Attributes != `[]` || mug.Categories != `["Mugs"]` || mug.VariantAttributes.Valid ||
		mug.Images != `["https://cdn.example/mug.jpg","https://cdn.example/mug-2.jpg"]` {
		t.Errorf("mug %+v", mug)
	}
}

func TestShopifyImportProgress(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Progress")
	data, err := os.ReadFile(filepath.Join("testdata", "shopify_export.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Import(app, org, bytes.NewReader(data), Options{Format: FormatShopifyCSV, Progress: &out, Size: int64(len(data))}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "100%") || !strings.Contains(got, "6 products (6 created") {
		t.Errorf("progress output %q", got)
	}
}

func TestShopifyImportHeaderCase(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Case")
	file := " handle ,TITLE,Body (html),vendor,Product category,Variant sku,status\nbowl,Bowl,<p>Deep.</p>,Kiln Works,Home > Kitchen,BOWL-1,draft\n"
	if res := mustImport(t, app, org, file, Options{Format: FormatShopifyCSV}); res.Created != 1 {
		t.Fatalf("result %+v", res)
	}
	bowl := byExternalID(t, app, org)["bowl"]
	if bowl.SKU != "BOWL-1" || bowl.Name != "Bowl" || bowl.Description != "<p>Deep.</p>" || bowl.Brand == "" ||
		bowl.Categories != `["Home > Kitchen"]` || bowl.Active {
		t.Errorf("bowl %+v", bowl)
	}
}

// Two metafield columns that share a label are attributes named by their
// NS.KEY, each; a label of its own names its attribute.
func TestShopifyImportSharedMetafieldLabel(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Labels")
	file := "Handle,Title,Variant SKU,Color (product.metafields.shopify.color-pattern),Color (product.metafields.custom.color),Fabric (product.metafields.shopify.fabric)\n" +
		"vase,Vase,VASE-1,Blue,Navy,Stoneware\n"
	if res := mustImport(t, app, org, file, Options{Format: FormatShopifyCSV}); res.Created != 1 {
		t.Fatalf("result %+v", res)
	}
	if want, got := `[{"attribute":"shopify.color-pattern","detail":"Blue"},{"attribute":"custom.color","detail":"Navy"},{"attribute":"Fabric","detail":"Stoneware"}]`,
		byExternalID(t, app, org)["vase"].Attributes; got != want {
		t.Errorf("attributes\n got %s\nwant %s", got, want)
	}
}
