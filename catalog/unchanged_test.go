package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

func TestReimportWritesNothing(t *testing.T) {
	for _, file := range []string{"good.json", "late_templates.json"} {
		t.Run(file, func(t *testing.T) {
			app := newApp(t)
			org := newOrg(t, app, "Twice")
			first := mustImportFile(t, app, org, file)
			snap := snapshot(t, app)
			res := mustImportFile(t, app, org, file)
			if res.Unchanged != first.Created || res.Created+res.Updated+res.Deactivated != 0 {
				t.Errorf("second import %+v after %+v", res, first)
			}
			if now := snapshot(t, app); now != snap {
				t.Errorf("the second import wrote:\nbefore %s\nafter %s", snap, now)
			}
		})
	}
}

// setColumn changes a column of org's product sku as another writer would.
func setColumn(t *testing.T, app core.App, sku, column string, value any) {
	t.Helper()
	if _, err := app.DB().Update("products", dbx.Params{column: value}, dbx.HashExp{"sku": sku}).Execute(); err != nil {
		t.Fatal(err)
	}
}

func TestImportComparesRowsWithoutDigest(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "No digest")
	mustImportFile(t, app, org, "good.json")
	imported := products(t, app, org)

	// rows as the previous release left them: no digest
	if _, err := app.DB().NewQuery("UPDATE products SET importHash = ''").Execute(); err != nil {
		t.Fatal(err)
	}
	// a record saved unchanged (the dashboard saves every field) loses it too
	mug, err := app.FindFirstRecordByData("products", "sku", "MUG-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Save(mug); err != nil {
		t.Fatal(err)
	}
	saved := products(t, app, org)
	if res := mustImportFile(t, app, org, "good.json"); res.Unchanged != 5 || res.Updated != 0 {
		t.Errorf("re-import of rows without digest: %+v", res)
	}
	again := products(t, app, org)
	for sku, p := range saved {
		p.ImportHash = imported[sku].ImportHash // set again, and the same
		if again[sku] != p {
			t.Errorf("%s: %+v, want %+v", sku, again[sku], p)
		}
	}

	// the same values written in another JSON form are the same values
	run := again["RUN"]
	_, options := templateIDs(t, app, org)
	setColumn(t, app, "RUN", "attributes", ` [ {"detail" : "Red", "attribute": "Color", "optionId": `+options["Shoes/Color"]+`} ] `)
	setColumn(t, app, "RUN", "images", `[ "https://img.example/1.jpg" ]`)
	reformatted := products(t, app, org)["RUN"]
	if reformatted.ImportHash != "" || reformatted.Attributes == run.Attributes {
		t.Fatalf("RUN reformatted: %+v", reformatted)
	}
	if res := mustImportFile(t, app, org, "good.json"); res.Unchanged != 5 {
		t.Errorf("re-import after reformatting: %+v", res)
	}
	if p := products(t, app, org)["RUN"]; p.Updated != run.Updated || p.ImportHash != run.ImportHash {
		t.Errorf("RUN reformatted was written: %+v", p)
	}

	// any other writer's change clears the digest; the file then wins
	for column, value := range map[string]any{"name": "Mug (edited)", "gtin": "04000000000001", "active": false} {
		setColumn(t, app, "MUG-1", column, value)
		if p := products(t, app, org)["MUG-1"]; p.ImportHash != "" {
			t.Errorf("%s changed, the digest stays: %q", column, p.ImportHash)
		}
		if res := mustImportFile(t, app, org, "good.json"); res.Updated != 1 || res.Unchanged != 4 {
			t.Errorf("after a change of %s: %+v", column, res)
		}
		p := products(t, app, org)["MUG-1"]
		if p.Updated == again["MUG-1"].Updated {
			t.Errorf("after a change of %s, MUG-1 was not written", column)
		}
		if p.Updated = again["MUG-1"].Updated; p != again["MUG-1"] {
			t.Errorf("after a change of %s, MUG-1 is %+v, want %+v", column, p, again["MUG-1"])
		}
		again = products(t, app, org)
	}
}

func TestImportDeactivatesMissing(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Snapshot")
	mustImportFile(t, app, org, "good.json") // active: RUN, RUN-42-RED, TEE-1, MUG-1; not RUN-43-BLUE
	before := products(t, app, org)
	generation, err := store.New(app).Generation(org)
	if err != nil {
		t.Fatal(err)
	}
	part := `{"products": [{"sku": "RUN", "externalId": "ERP-1", "name": "Runner"}, {"sku": "MUG-1", "externalId": "ERP-9", "name": "Mug"}]}`

	if res := mustImport(t, app, org, part, Options{}); res.Deactivated != 0 {
		t.Errorf("without --deactivate-missing: %+v", res)
	}
	res := mustImport(t, app, org, part, Options{DeactivateMissing: true})
	if res.Deactivated != 2 || res.Unchanged != 2 {
		t.Errorf("with --deactivate-missing: %+v", res)
	}
	after := products(t, app, org)
	for sku, active := range map[string]bool{"RUN": true, "MUG-1": true, "RUN-42-RED": false, "TEE-1": false, "RUN-43-BLUE": false} {
		if after[sku].Active != active {
			t.Errorf("%s active %v, want %v", sku, after[sku].Active, active)
		}
	}
	for _, sku := range []string{"RUN-42-RED", "TEE-1"} {
		if after[sku].Updated == before[sku].Updated || after[sku].ImportHash != "" {
			t.Errorf("%s deactivated: updated %s (was %s), digest %q", sku, after[sku].Updated, before[sku].Updated, after[sku].ImportHash)
		}
	}
	if after["RUN-43-BLUE"] != before["RUN-43-BLUE"] {
		t.Errorf("an inactive product was written")
	}
	if g, err := store.New(app).Generation(org); err != nil || g <= generation {
		t.Errorf("the generation did not move: %d, was %d (%v)", g, generation, err)
	}

	// the full file again brings them back (and RUN's fields the part left out)
	if res := mustImportFile(t, app, org, "good.json"); res.Updated != 3 || res.Deactivated != 0 {
		t.Errorf("the full file after the snapshot: %+v", res)
	}
	if p := products(t, app, org); !p["TEE-1"].Active || !p["RUN-42-RED"].Active {
		t.Errorf("not reactivated: %+v", p)
	}
}

func TestImportSharedSKUs(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Shared")
	file := `{"products": [
		{"sku": "S", "externalId": "E-1", "name": "Blue"},
		{"sku": "T", "externalId": "E-3", "name": "Other"},
		{"sku": "S", "externalId": "E-2", "name": "Green"}]}`
	if res := mustImport(t, app, org, file, Options{}); res.Created != 3 {
		t.Fatalf("first import: %+v", res)
	}
	if res := mustImport(t, app, org, file, Options{}); res.Unchanged != 3 {
		t.Errorf("the same file again: %+v", res)
	}
	// a stored product joins the SKU by the file renaming it
	if res := mustImport(t, app, org, `{"products": [{"sku": "S", "externalId": "E-3", "name": "Other"}]}`, Options{}); res.Updated != 1 {
		t.Errorf("renamed into a shared SKU: %+v", res)
	}

	s := store.New(app)
	found, err := s.Catalog().ProductsBySKU(org, enrichment.Selection{}, []string{"S"})
	if err != nil || len(found) != 3 {
		t.Errorf("the lookup of a shared SKU: %d products, %v", len(found), err)
	}
	client := newClient(t, app, org)
	results, err := s.Proposals().Submit(org, client, []enrichment.Proposal{{SKU: "S", Fields: enrichment.Fields{Name: ptr("x")}}}, store.SubmitOptions{DryRun: true})
	if err != nil || results[0].Status != enrichment.ResultUnmatched {
		t.Errorf("a submission for a shared SKU: %+v %v", results, err)
	}

	// a product without externalId cannot say which one it is
	before := snapshot(t, app)
	_, err = Import(app, org, strings.NewReader(`{"products": [{"sku": "S", "name": "Which?"}]}`), Options{})
	if ce := asCatalogError(t, err); ce.Path != "products[0].externalId" || !strings.Contains(ce.Msg, `3 stored products share SKU "S"`) {
		t.Errorf("a keyless product of a shared SKU: %v", ce)
	}
	if snapshot(t, app) != before {
		t.Errorf("the refused file changed the database")
	}
}

func TestImportLinksMastersFarAhead(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Far ahead")
	// the variant's batch is written long before its master is read
	var b strings.Builder
	b.WriteString(`{"products": [{"sku": "V", "variantMaster": "M"}`)
	for i := range 2 * batchSize {
		fmt.Fprintf(&b, `, {"sku": "F-%d"}`, i)
	}
	b.WriteString(`, {"sku": "M", "variantAttributes": ["Size"]}]}`)
	file := b.String()

	mustImport(t, app, org, file, Options{})
	ps := products(t, app, org)
	if ps["V"].VariantMaster != ps["M"].ID || ps["V"].ImportHash == "" {
		t.Fatalf("V: %+v, M: %+v", ps["V"], ps["M"])
	}
	snap := snapshot(t, app)
	if res := mustImport(t, app, org, file, Options{}); res.Unchanged != 2*batchSize+2 {
		t.Errorf("the same file again: %+v", res)
	}
	if snapshot(t, app) != snap {
		t.Errorf("the same file again wrote")
	}
}
