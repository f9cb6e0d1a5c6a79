package cmd

import (
	"maps"
	"net"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// TestDemoImagesRefreshed: a demo folder of an earlier release, whose
// products show the placeholder images, gets the demo's own images on the
// next run; the values reviewers accepted stay, and a later run writes
// nothing.
func TestDemoImagesRefreshed(t *testing.T) {
	app := fixture.Empty(t)
	id, err := store.New(app).Accounts().CreateOrg(demoOrgName)
	if err != nil {
		t.Fatal(err)
	}
	org := enrichment.Org(store.FormatID(id))
	old := gen.Demo()
	old.ImageBase = "" // what earlier releases imported
	if err := importDemo(app, org, old); err != nil {
		t.Fatal(err)
	}
	if err := demoProposals(app, org); err != nil {
		t.Fatal(err)
	}
	before := demoState(t, app)

	if _, _, err := demoCatalog(app); err != nil {
		t.Fatal(err)
	}
	after := demoState(t, app)
	for sku, p := range after {
		if !strings.HasPrefix(p.images, `["`+gen.DemoImages+sku+"-1.svg") {
			t.Fatalf("%s: images %s after the run", sku, p.images)
		}
		if p.name != before[sku].name {
			t.Errorf("%s: name %q, was %q (an accepted value lost?)", sku, p.name, before[sku].name)
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d products after the run, %d before", len(after), len(before))
	}

	if _, _, err := demoCatalog(app); err != nil {
		t.Fatal(err)
	}
	if again := demoState(t, app); !maps.Equal(again, after) {
		t.Error("a second run changed the demo's products")
	}
}

// demoProductState is what TestDemoImagesRefreshed compares of a product.
type demoProductState struct{ name, images, updated string }

func demoState(t *testing.T, app core.App) map[string]demoProductState {
	t.Helper()
	recs, err := app.FindAllRecords("products", dbx.NewExp("1=1"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]demoProductState{}
	for _, r := range recs {
		out[r.GetString("sku")] = demoProductState{r.GetString("name"), r.GetString("images"), r.GetString("updated")}
	}
	return out
}

// TestDemoOnATakenAddress: with its address taken, the demo says so before
// it prints a key or changes anything (the last run's key is not revoked).
func TestDemoOnATakenAddress(t *testing.T) {
	app := fixture.Empty(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	r := runCmd(demoCommand, app, "--http", taken.Addr().String())
	wantCmdErr(t, r, "cannot serve on "+taken.Addr().String())
	if r.stdout != "" {
		t.Errorf("printed before failing: %q", r.stdout)
	}
	if n, err := app.CountRecords("organizations"); err != nil || n != 0 {
		t.Errorf("%d organizations after the refusal (%v), want none made", n, err)
	}
}
