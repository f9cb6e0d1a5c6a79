package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// When deferring the slug index pays: enough products written, and what is
// left of the file at least half the table.
func TestSlugIndexWorth(t *testing.T) {
	for _, c := range []struct {
		name                    string
		created, rows, size     int64
		readBytes, readProducts int64
		want                    bool
	}{
		{"1M into an empty table, a tenth read", 100_000, 100_000, 2_000_000_000, 200_000_000, 100_000, true},
		{"too few written yet", 99_999, 99_999, 2_000_000_000, 200_000_000, 99_999, false},
		{"200k left, 300k in the table", 100_000, 300_000, 600_000_000, 200_000_000, 100_000, true},
		{"200k left, 500k in the table", 100_000, 500_000, 600_000_000, 200_000_000, 100_000, false},
		{"the end of the file", 1_000_000, 1_000_000, 2_000_000_000, 2_000_000_000, 1_000_000, false},
		{"size unknown (standard input)", 100_000, 100_000, 0, 200_000_000, 100_000, false},
		{"nothing read yet", 100_000, 100_000, 2_000_000_000, 0, 0, false},
	} {
		if got := slugIndexWorth(c.created, c.rows, c.size, fileRead{bytes: c.readBytes, products: c.readProducts}); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// slugIndexFile is a catalog of n products whose slugs run against the
// file's order; with badLast, the last one has no SKU (refused).
func slugIndexFile(n int, badLast bool) string {
	var b strings.Builder
	b.WriteString(`{"products": [`)
	for i := range n {
		sku := fmt.Sprintf("SLUG-%05d", i)
		if badLast && i == n-1 {
			sku = ""
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n{\"sku\": %q, \"name\": \"P %d\", \"slug\": \"p-%05d\"}", sku, i, n-i)
	}
	b.WriteString("]}")
	return b.String()
}

type indexRow struct {
	SQL      string `db:"sql"`
	RootPage int64  `db:"rootpage"`
}

func slugIndexRow(t *testing.T, app core.App) indexRow {
	t.Helper()
	var r indexRow
	if err := app.DB().NewQuery("SELECT sql, rootpage FROM sqlite_master WHERE name = {:n}").
		Bind(dbx.Params{"n": schema.IdxProductsSlug}).One(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

// A large import builds the slug index at its end, saying so on its
// progress line: the index is the same (its statement), built anew (its
// root page), and finds every product; a small one keeps it up as it goes;
// a failed one leaves it as it was.
func TestImportDefersSlugIndex(t *testing.T) {
	was := slugIndexAfter
	slugIndexAfter = 2 * batchSize
	t.Cleanup(func() { slugIndexAfter = was })
	app := newApp(t)
	before := slugIndexRow(t, app)

	// importData imports data and answers what the progress line showed
	importData := func(org enrichment.Org, data string) (string, error) {
		var out strings.Builder
		_, err := Import(app, org, strings.NewReader(data), Options{Size: int64(len(data)), Progress: &out, Now: nextImportTime})
		return out.String(), err
	}
	const step = "building the slug index"
	// small: fewer products than slugIndexAfter
	if out, err := importData(newOrg(t, app, "Small"), slugIndexFile(int(slugIndexAfter)-1, false)); err != nil || strings.Contains(out, step) {
		t.Fatalf("small import: %v, progress %q", err, out)
	}
	if got := slugIndexRow(t, app); got != before {
		t.Fatalf("a small import rebuilt the slug index: %+v, was %+v", got, before)
	}
	// failed after the deferral point
	if _, err := importData(newOrg(t, app, "Failed"), slugIndexFile(6*batchSize, true)); err == nil {
		t.Fatal("a file with an empty SKU was imported")
	}
	if got := slugIndexRow(t, app); got != before {
		t.Fatalf("a failed import changed the slug index: %+v, was %+v", got, before)
	}
	// large
	large := newOrg(t, app, "Large")
	out, err := importData(large, slugIndexFile(6*batchSize, false))
	if err != nil || !strings.Contains(out, "100%  3,000 products") || !strings.Contains(out, step) {
		t.Fatalf("large import: %v, progress %q", err, out)
	}
	after := slugIndexRow(t, app)
	if after.SQL != before.SQL || after.RootPage == before.RootPage {
		t.Fatalf("the large import's slug index: %+v, was %+v", after, before)
	}
	var check string
	if err := app.DB().NewQuery("PRAGMA integrity_check").Row(&check); err != nil || check != "ok" {
		t.Fatalf("integrity check: %q %v", check, err)
	}
	var found []struct {
		SKU string `db:"sku"`
	}
	err = app.DB().NewQuery("SELECT sku FROM products INDEXED BY " + schema.IdxProductsSlug +
		" WHERE organization = {:org} AND slug != '' AND slug IN ('p-03000', 'p-00001', 'p-01500') ORDER BY sku").
		Bind(dbx.Params{"org": string(large)}).All(&found)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(found) != "[{SLUG-00000} {SLUG-01500} {SLUG-02999}]" {
		t.Errorf("found by slug: %v", found)
	}
}
