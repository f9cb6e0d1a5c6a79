package catalog

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

func TestImportGoodFile(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Acme Retail")

	res := mustImportFile(t, app, org, "good.json")
	want := Result{Templates: 2, Options: 3, Brands: 2, Created: 5}
	if res != want {
		t.Fatalf("result %+v, want %+v", res, want)
	}

	ps := products(t, app, org)
	templates, options := templateIDs(t, app, org)
	if len(ps) != 5 || len(templates) != 2 || len(options) != 3 {
		t.Fatalf("stored %d products, %d templates, %d options", len(ps), len(templates), len(options))
	}
	master, red, blue, tee, mug := ps["RUN"], ps["RUN-42-RED"], ps["RUN-43-BLUE"], ps["TEE-1"], ps["MUG-1"]

	// option links: matching names get the option id, others stay free-form
	wantAttrs := fmt.Sprintf(`[{"attribute":"Color","detail":"Red","optionId":%s},{"attribute":"Size","detail":"42","optionId":%s},{"attribute":"Lining","detail":"Mesh"}]`,
		options["Shoes/Color"], options["Shoes/Size"])
	if red.Attributes != wantAttrs {
		t.Errorf("attributes\n got %s\nwant %s", red.Attributes, wantAttrs)
	}
	wantAttrs = fmt.Sprintf(`[{"attribute":"Fabric","detail":"Cotton","optionId":%s},{"attribute":"Color","detail":"White"}]`, options["Shirts/Fabric"])
	if tee.Attributes != wantAttrs {
		t.Errorf("attributes of TEE-1\n got %s\nwant %s", tee.Attributes, wantAttrs)
	}
	if red.AttributeTemplate != templates["Shoes"] || tee.AttributeTemplate != templates["Shirts"] || mug.AttributeTemplate != "" {
		t.Errorf("templates %q %q %q, want %v", red.AttributeTemplate, tee.AttributeTemplate, mug.AttributeTemplate, templates)
	}

	// variant masters, the first one pointing forward in the file
	if red.VariantMaster != master.ID || blue.VariantMaster != master.ID || master.VariantMaster != "" {
		t.Errorf("variant masters: red %q blue %q master %q, want %q", red.VariantMaster, blue.VariantMaster, master.VariantMaster, master.ID)
	}

	// JSON fields and defaults
	if master.VariantAttributes.String != `["Color","Size"]` || mug.VariantAttributes.Valid {
		t.Errorf("variantAttributes %v / %v", master.VariantAttributes, mug.VariantAttributes)
	}
	if master.Categories != `["Shoes"]` || master.Images != `["https://img.example/1.jpg"]` || master.Files != `[]` {
		t.Errorf("JSON fields of RUN: %s %s %s", master.Categories, master.Images, master.Files)
	}
	if mug.Categories != `[]` || mug.Images != `[]` || mug.Files != `[]` || mug.Attributes != `[]` {
		t.Errorf("JSON fields of MUG-1 should be empty arrays: %+v", mug)
	}
	if !mug.Active || !master.Active || blue.Active {
		t.Errorf("active: MUG-1 %v RUN %v RUN-43-BLUE %v", mug.Active, master.Active, blue.Active)
	}
	if mug.Brand != "" || red.Brand == "" || red.Brand != blue.Brand || tee.Brand == red.Brand {
		t.Errorf("brands: %q %q %q %q", mug.Brand, red.Brand, blue.Brand, tee.Brand)
	}
	for _, p := range ps {
		if _, err := enrichment.ParseID(p.ID); err != nil || p.Created == "" || p.Created != p.Updated || p.Organization != string(org) {
			t.Errorf("product %s: id %q created %q updated %q org %q", p.SKU, p.ID, p.Created, p.Updated, p.Organization)
		}
	}

	// the raw rows are valid PocketBase records
	for _, collection := range []string{"products", "brands", "attribute_templates", "attribute_options"} {
		records, err := app.FindAllRecords(collection)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range records {
			if err := app.Validate(r); err != nil {
				t.Errorf("%s %s is not a valid record: %v", collection, r.Id, err)
			}
		}
	}

	// and the API's read path sees them as imported
	got, err := store.New(app).Catalog().ProductsBySKU(org, enrichment.Selection{}, []string{"RUN"})
	if err != nil || len(got) != 1 {
		t.Fatalf("ProductsBySKU: %v %v", got, err)
	}
	p := got[0]
	if p.Brand == nil || p.Brand.Name != "Acme" || p.Brand.Website != "https://acme.example" ||
		p.Variants == nil || len(*p.Variants) != 1 || (*p.Variants)[0].SKU != "RUN-42-RED" ||
		p.Attributes[0].Option == nil || p.Attributes[0].Option.Priority != 1 {
		t.Errorf("exported product %+v", p)
	}
	var shirts struct {
		Active bool `db:"active"`
	}
	if err := app.DB().Select("active").From("attribute_templates").Where(dbx.HashExp{"name": "Shirts"}).One(&shirts); err != nil || !shirts.Active {
		t.Errorf("template active should default to true: %v %v", shirts, err)
	}
}

func TestImportUpdatesInsteadOfDuplicating(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Acme Retail")
	mustImportFile(t, app, org, "good.json")
	before := products(t, app, org)

	res := mustImportFile(t, app, org, "good.json")
	if want := (Result{Templates: 2, Options: 3, Brands: 2, Unchanged: 5}); res != want {
		t.Fatalf("second import of the same file: %+v, want %+v", res, want)
	}
	again := products(t, app, org)
	for sku, p := range before {
		if q := again[sku]; q != p {
			t.Errorf("%s re-imported unchanged: before %+v\nafter %+v", sku, p, q)
		}
	}

	res = mustImportFile(t, app, org, "update.json")
	if want := (Result{Templates: 1, Options: 1, Brands: 1, Created: 1, Updated: 3}); res != want {
		t.Fatalf("update import: %+v, want %+v", res, want)
	}
	after := products(t, app, org)
	if len(after) != 6 {
		t.Fatalf("want 6 products, got %d", len(after))
	}
	templates, options := templateIDs(t, app, org)

	// by externalId, even though the SKU changed
	renamed := after["RUN-42-RED-V2"]
	if renamed.ID != before["RUN-42-RED"].ID || renamed.AttributeTemplate != "" || renamed.Attributes != "[]" || renamed.VariantMaster != before["RUN"].ID {
		t.Errorf("ERP-2 should be updated in place: %+v", renamed)
	}
	// by SKU when there is no externalId; the stored externalId stays
	tee := after["TEE-1"]
	if tee.ID != before["TEE-1"].ID || tee.Active || tee.Name != "Plain tee, organic" || tee.Updated <= again["TEE-1"].Updated {
		t.Errorf("TEE-1 should be updated by SKU: %+v", tee)
	}
	// an option the file adds after the products is linked all the same
	run := after["RUN"]
	want := fmt.Sprintf(`[{"attribute":"Color","detail":"Red","optionId":%s},{"attribute":"Width","detail":"Wide","optionId":%s}]`,
		options["Shoes/Color"], options["Shoes/Width"])
	if run.Attributes != want || run.AttributeTemplate != templates["Shoes"] || run.Created != before["RUN"].Created {
		t.Errorf("RUN attributes\n got %s\nwant %s", run.Attributes, want)
	}
	// options not in the file are left alone; the template's flag is updated
	if len(options) != 4 || options["Shoes/Size"] == "" {
		t.Errorf("options after update: %v", options)
	}
	var shoes struct {
		Active bool `db:"active"`
	}
	if err := app.DB().Select("active").From("attribute_templates").Where(dbx.HashExp{"name": "Shoes"}).One(&shoes); err != nil || shoes.Active {
		t.Errorf("Shoes should be inactive now: %v %v", shoes, err)
	}
	// products absent from the file are untouched
	if after["RUN-43-BLUE"] != again["RUN-43-BLUE"] || after["MUG-1"] != again["MUG-1"] {
		t.Errorf("products absent from the file changed")
	}
	// a brand named without website keeps it; the slug given is updated
	var acme struct {
		Website string `db:"website"`
		Slug    string `db:"slug"`
	}
	if err := app.DB().Select("website", "slug").From("brands").Where(dbx.HashExp{"name": "Acme"}).One(&acme); err != nil ||
		acme.Website != "https://acme.example" || acme.Slug != "acme-gmbh" {
		t.Errorf("Acme after update: %+v %v", acme, err)
	}
}

func TestImportTemplatesAfterProducts(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Late Templates")
	file := `{"products": [
		{"sku": "V-1", "variantMaster": "M-1", "attributeTemplate": "Lamps", "attributes": [{"attribute": "Watt", "detail": "40"}]},
		{"sku": "M-1", "attributeTemplate": "Lamps", "attributes": [{"attribute": "Watt", "detail": "60"}, {"attribute": "Style", "detail": "Retro"}]}
	], "attributeTemplates": [{"name": "Lamps", "options": [{"attribute": "Watt", "unit": "W"}]}]}`
	if _, err := Import(app, org, strings.NewReader(file), Options{}); err != nil {
		t.Fatal(err)
	}
	ps := products(t, app, org)
	templates, options := templateIDs(t, app, org)
	if ps["V-1"].VariantMaster != ps["M-1"].ID || ps["M-1"].AttributeTemplate != templates["Lamps"] {
		t.Errorf("links: %+v", ps)
	}
	want := fmt.Sprintf(`[{"attribute":"Watt","detail":"60","optionId":%s},{"attribute":"Style","detail":"Retro"}]`, options["Lamps/Watt"])
	if ps["M-1"].Attributes != want {
		t.Errorf("attributes\n got %s\nwant %s", ps["M-1"].Attributes, want)
	}
}

func TestImportKeepsOrganizationsApart(t *testing.T) {
	app := newApp(t)
	a, b := newOrg(t, app, "A"), newOrg(t, app, "B")
	mustImportFile(t, app, a, "good.json")
	if res := mustImportFile(t, app, b, "good.json"); res.Created != 5 {
		t.Fatalf("B should get its own products: %+v", res)
	}
	pa, pb := products(t, app, a), products(t, app, b)
	for sku := range pa {
		if pa[sku].ID == pb[sku].ID {
			t.Errorf("%s shared between organizations", sku)
		}
	}
	if pb["RUN-42-RED"].VariantMaster != pb["RUN"].ID || pb["RUN"].Brand == pa["RUN"].Brand ||
		pb["RUN"].AttributeTemplate == pa["RUN"].AttributeTemplate {
		t.Errorf("B's references must stay in B: %+v", pb["RUN-42-RED"])
	}
	// an update of A leaves B alone
	mustImportFile(t, app, a, "update.json")
	if after := products(t, app, b); len(after) != 5 || after["RUN"] != pb["RUN"] {
		t.Errorf("B changed by A's import")
	}
}

func TestImportUnknownOrganization(t *testing.T) {
	app := newApp(t)
	if _, err := Import(app, "999", strings.NewReader(`{"products": []}`), Options{}); err == nil ||
		!strings.Contains(err.Error(), "no organization with id 999") {
		t.Fatalf("want an unknown organization error, got %v", err)
	}
}

func TestImportProgress(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Progress")
	data, err := os.ReadFile(filepath.Join("testdata", "good.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Import(app, org, bytes.NewReader(data), Options{Progress: &out, Size: int64(len(data))}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.HasPrefix(got, "\r[") || !strings.Contains(got, "100%") || !strings.Contains(got, "5 products") ||
		!strings.HasSuffix(got, "products/s.\n") {
		t.Errorf("progress output %q", got)
	}
	out.Reset()
	if _, err := Import(app, org, strings.NewReader(`{"products": [{}]}`), Options{Progress: &out}); err == nil ||
		!strings.Contains(out.String(), "nothing was stored") {
		t.Errorf("progress after a failure: %q", out.String())
	}
}

func TestErrorString(t *testing.T) {
	for _, c := range []struct {
		err  Error
		want string
	}{
		{Error{Path: "products[17].variantMaster", Msg: `no product with SKU "X"`}, `products[17].variantMaster: no product with SKU "X"`},
		{Error{Path: "products[2].sku", Line: 4, Msg: "required"}, "products[2].sku: required (line 4)"},
		{Error{Line: 12, Column: 5, Msg: "invalid character"}, "line 12, column 5: invalid character"},
		{Error{Path: "products[0].active", Line: 3, Column: 9, Msg: "want a boolean, got a string"},
			"products[0].active: want a boolean, got a string (line 3, column 9)"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestLineReaderFarIntoLargeInput(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	input := strings.Repeat(line, 3*keepBytes/len(line)) + "  oops"
	lr := newLineReader(&chunked{r: strings.NewReader(input), n: 4096})
	if _, err := io.ReadAll(lr); err != nil {
		t.Fatal(err)
	}
	if lr.base == 0 {
		t.Fatal("the window should have slid")
	}
	off := int64(strings.Index(input, "oops"))
	if l, c := lr.position(off); l != 3*keepBytes/len(line)+1 || c != 3 {
		t.Errorf("position %d:%d", l, c)
	}
	if l, _ := lr.position(10); l != 0 {
		t.Errorf("an offset out of the window should be unknown, got line %d", l)
	}
}

// chunked reads at most n bytes at a time, like a pipe.
type chunked struct {
	r io.Reader
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), c.n)])
}
