package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// shopifyHeader is a short Shopify product CSV header, as the template has
// its columns.
const shopifyTestHeader = "Handle,Title,Body (HTML),Vendor,Type,Published,Option1 Name,Option1 Value,Variant SKU,Variant Price,Image Src,Status\n"

// manyHandles is a Shopify CSV of n products without options (enough to
// be written in several batches), then bad.
func manyHandles(n int, bad string) string {
	var b strings.Builder
	b.WriteString(shopifyTestHeader)
	for i := range n {
		fmt.Fprintf(&b, "item-%d,Item %d,,Acme,Things,TRUE,Title,Default Title,ITEM-%d,1.00,,active\n", i, i, i)
	}
	return b.String() + bad
}

func TestShopifyImportRefusesBadFiles(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Northwind Shop")
	if _, err := importShopify(t, app, org, "shopify_export.csv"); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, app)
	h := shopifyTestHeader
	cases := []struct {
		name, file, path, msg string
		line                  int
	}{
		{"empty", "", "", "the file is empty", 1},
		{"not a Shopify CSV", "sku,name\nA,B\n", "", `no "Handle" column`, 1},
		{"no Title column", "Handle,Variant SKU\na,A\n", "", `no "Title" column`, 1},
		{"a column twice", "Handle,Title,Tags,Tags,title\na,A,,,B\n", "", `column "title" appears twice`, 1},
		{"unterminated quote", h + "a,A,\"<p>open\n,Acme,,,,,A-1,,,active\n", "", `; the row starts on line 2`, 3},
		{"quote in the first cell", h + "a,A,,Acme,,,,,A-1,,,active\nb\"c,B,,,,,,,B-1,,,active\n", "", `bare " in non-quoted-field`, 3},
		{"bare quote", h + "a,A \"x\",,Acme,,,,,A-1,,,active\n", "", `bare " in non-quoted-field`, 2},
		{"short row", h + "a,A,,Acme,,,,,A-1,,,active\nb,B,,Acme\n", "", "a row of 4 columns, where the header has 12", 3},
		{"row without handle", h + "a,A,,Acme,,,,,A-1,,,active\n,,,,,,,,A-2,,,\n", "Handle", "required", 3},
		{"handle rows apart", h + "a,A,,,,,Size,S,A-1,,,active\nb,B,,,,,,,B-1,,,active\na,,,,,,,M,A-2,,,\n", "Handle",
			`handle "a" again, after other handles (its rows began on line 2): the rows of one handle must follow each other`, 4},
		{"handle rows apart, the title again", h + "a,A,,,,,Size,S,A-1,,,active\nb,B,,,,,,,B-1,,,active\na,A,,,,,Size,M,A-2,,,active\n", "Handle",
			`handle "a" again, after other handles (its rows began on line 2)`, 4},
		{"a title without a handle first", h + "a,,,,,,Size,S,A-1,,,active\n", "Title",
			`required on the first row of handle "a" (the rows of one handle must follow each other)`, 2},
		{"lines ending in a bare CR", strings.ReplaceAll(h+"a,A,,,,,,,A-1,,,active\n", "\n", "\r"), "",
			"the lines end in a bare carriage return", 1},
		{"one metafield in two columns", "Handle,Title,A (product.metafields.custom.x),B (product.metafields.custom.x)\na,A,1,2\n", "",
			`metafield custom.x has two columns ("A (product.metafields.custom.x)" and "B (product.metafields.custom.x)")`, 1},
		{"two variants with SKUs and no options", h + "a,A,,,,,,,A-1,1.00,,active\na,,,,,,,,A-2,2.00,,\n", "Option1 Value",
			`a variant of handle "a" with the same option values as line 2: Shopify tells a product's variants apart by them`, 3},
		{"two variants with the same option value", h + "a,A,,,,,Size,S,A-1,1.00,,active\na,,,,,,,S,A-2,2.00,,\n", "Option1 Value",
			`a variant of handle "a" with the same option values as line 2`, 3},
		{"bad status", h + "a,A,,,,,,,A-1,,,live\n", "Status", `want active, draft or archived, got "live"`, 2},
		{"bad published", "Handle,Title,Published\na,A,yes\n", "Published", `want TRUE or FALSE, got "yes"`, 2},
		{"title too long", h + "a," + strings.Repeat("t", 1001) + ",,,,,,,A-1,,,active\n", "Title", "longer than 1000 characters", 2},
		{"sku too long", h + "a,A,,,,,,," + strings.Repeat("s", 201) + ",,,active\n", "Variant SKU", "longer than 200 characters", 2},
		{"two variants without SKU or options", h + "a,A,,,,,,,,1.00,,active\na,,,,,,,,,2.00,,\n", "Option1 Value", `a variant of handle "a" with the same option values as line 2`, 3},
		{"two variants, one SKU", h + "a,A,,,,,Size,S,A-1,1.00,,active\na,,,,,,,M,A-1,2.00,,\n", "Variant SKU", `a second variant "a/A-1" of handle "a" (also line 2)`, 3},
		{"two handles, one externalId", h + "a,A,,,,,Size,S,X,,,active\na/X,B,,,,,,,,,,active\n", "Handle and Variant SKU", `duplicate externalId "a/X"`, 3},
		{"bad row after several batches", manyHandles(1200, "late,Late,,,,,,,L-1,,,gone\n"), "Status", `got "gone"`, 1202},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Import(app, org, strings.NewReader(c.file), Options{Format: FormatShopifyCSV})
			ce := asCatalogError(t, err)
			if ce.Path != c.path || !strings.Contains(ce.Msg, c.msg) || ce.Line != c.line {
				t.Errorf("got %q (path %q, line %d), want path %q, line %d, message with %q", ce.Error(), ce.Path, ce.Line, c.path, c.line, c.msg)
			}
			if after := snapshot(t, app); after != before {
				t.Errorf("a refused file changed the database")
			}
		})
	}
}

func TestShopifyImportKeepsAcceptedValues(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Northwind Shop")
	if _, err := importShopify(t, app, org, "shopify_export.csv"); err != nil {
		t.Fatal(err)
	}
	client := newClient(t, app, org)
	rev := accept(t, app, org, client, "TEE-S-BLUE", enrichment.Fields{Description: ptr("<p>Enriched.</p>"),
		Attributes: attrs(enrichment.StoredAttribute{Attribute: "Neckline", Detail: "Crew"})})

	// the shop's file has not caught up: the accepted values stay
	res, err := importShopify(t, app, org, "shopify_export.csv")
	if err != nil {
		t.Fatal(err)
	}
	if res.KeptEnriched != 1 || res.Unchanged != 6 || res.Updated != 0 {
		t.Fatalf("re-import after an acceptance: %+v", res)
	}
	blue := byExternalID(t, app, org)["classic-tee/TEE-S-BLUE"]
	if blue.Description != "<p>Enriched.</p>" || !strings.Contains(blue.Attributes, `"Neckline"`) {
		t.Errorf("accepted values lost: %+v", blue)
	}

	// --overwrite-enriched: the file wins, the vendor sees "overwritten"
	f, err := os.Open(filepath.Join("testdata", "shopify_export.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err = Import(app, org, f, Options{Format: FormatShopifyCSV, OverwriteEnriched: true})
	if err != nil || res.Updated != 1 || res.KeptEnriched != 0 {
		t.Fatalf("--overwrite-enriched: %+v %v", res, err)
	}
	blue = byExternalID(t, app, org)["classic-tee/TEE-S-BLUE"]
	if strings.Contains(blue.Description, "Enriched") || strings.Contains(blue.Attributes, `"Neckline"`) {
		t.Errorf("the file did not win: %+v", blue)
	}
	if got := outcomes(t, app, org, client)[rev]; !strings.Contains(got, "description:overwritten") {
		t.Errorf("outcomes %q", got)
	}
}

func TestShopifyImportDeactivatesMissing(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Northwind Shop")
	if _, err := importShopify(t, app, org, "shopify_export.csv"); err != nil {
		t.Fatal(err)
	}
	part := shopifyTestHeader + "gift-tote,Gift Tote,,Harbor & Co,Bags,TRUE,Title,Default Title,BAG-1,26.00,,active\n"
	res := mustImport(t, app, org, part, Options{Format: FormatShopifyCSV, DeactivateMissing: true})
	if res.Deactivated != 4 || res.Unchanged != 1 { // the three tees and the apron; canvas-tote is a draft already
		t.Fatalf("--deactivate-missing: %+v", res)
	}
	for ext, p := range byExternalID(t, app, org) {
		if p.Active != (ext == "gift-tote") {
			t.Errorf("%s active %v", ext, p.Active)
		}
	}
}
