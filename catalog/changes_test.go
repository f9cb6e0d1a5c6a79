package catalog

import (
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// feedSince returns org's change feed after cursor as "change SKU" lines,
// sorted, and the cursor after them.
func feedSince(t *testing.T, app core.App, org enrichment.Org, after int64) ([]string, int64) {
	t.Helper()
	page, err := store.New(app).Catalog().Changes(org, 0, enrichment.Selection{}, after, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range page.Items {
		out = append(out, c.Change+" "+c.SKU)
	}
	slices.Sort(out)
	return out, page.Last
}

func TestImportWritesTheChangeFeed(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Feed")

	mustImportFile(t, app, org, "good.json")
	got, cursor := feedSince(t, app, org, 0)
	// RUN-43-BLUE is created inactive: it never entered the export
	if want := []string{"upsert MUG-1", "upsert RUN", "upsert RUN-42-RED", "upsert TEE-1"}; !slices.Equal(got, want) {
		t.Errorf("after the first import, the feed has %q, want %q", got, want)
	}

	mustImportFile(t, app, org, "good.json")
	if got, _ := feedSince(t, app, org, cursor); len(got) != 0 {
		t.Errorf("the same file again put %q in the feed", got)
	}

	part := `{"products": [{"sku": "RUN", "externalId": "ERP-1", "name": "Runner II"}, {"sku": "MUG-1", "externalId": "ERP-9", "name": "Mug"},
		{"sku": "NEW-1", "name": "New"}]}`
	res := mustImport(t, app, org, part, Options{DeactivateMissing: true})
	if res != (Result{Created: 1, Updated: 1, Unchanged: 1, Deactivated: 2}) {
		t.Errorf("the snapshot: %+v", res)
	}
	got, cursor = feedSince(t, app, org, cursor)
	if want := []string{"remove RUN-42-RED", "remove TEE-1", "upsert NEW-1", "upsert RUN"}; !slices.Equal(got, want) {
		t.Errorf("after the snapshot, the feed has %q, want %q", got, want)
	}

	// a refused file leaves no change behind, the products it created before
	// the item at fault included
	bad := `{"products": [{"sku": "NEW-2", "name": "New"}, {"sku": "RUN", "externalId": "ERP-1", "name": "Runner III"},
		{"sku": "NEW-2", "name": "Again"}]}`
	if _, err := Import(app, org, strings.NewReader(bad), Options{}); err == nil {
		t.Fatal("a SKU shared without externalIds was imported")
	}
	if got, _ := feedSince(t, app, org, cursor); len(got) != 0 {
		t.Errorf("a refused import put %q in the feed", got)
	}
}

// The feed carries a new product's SKU as it is, quotes, backslashes and
// all, whatever its batch.
func TestImportFeedKeepsSKUs(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Feed SKUs")
	skus := []string{`Q"1`, `B\2`, "É-3 ☃", "T\tab"}
	file := bulkFile(`{"sku": "Q\"1"}, {"sku": "B\\2"}`, `{"sku": "É-3 ☃"}, {"sku": "T\tab"}, {"sku": "<&>", "active": false}, {"sku": "<&>!"}`)
	mustImport(t, app, org, file, Options{})
	got, _ := feedSince(t, app, org, 0)
	if len(got) != batchSize+10+5 {
		t.Errorf("%d changes, want %d", len(got), batchSize+10+5)
	}
	for _, want := range []string{"upsert " + skus[0], "upsert " + skus[1], "upsert " + skus[2], "upsert " + skus[3], "upsert <&>!"} {
		if !slices.Contains(got, want) {
			t.Errorf("no %q in the feed", want)
		}
	}
	if slices.Contains(got, "upsert <&>") {
		t.Errorf("an inactive product in the feed")
	}
}
