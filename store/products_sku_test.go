package store_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/catalogfixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

// A long SKU list is read in two halves at once outside a transaction and
// whole inside one; either way the answer is every active product with one
// of the SKUs, each once, in numeric id order, unknown and repeated SKUs
// aside.
func TestProductsBySKULongList(t *testing.T) {
	c := catalogfixture.New(t, "Long lists", 1200)
	app, st, org := c.App, c.Store, c.Org
	var skus []string
	var ids []int64
	var rows []struct {
		SKU string `db:"sku"`
		N   int64  `db:"n"`
	}
	if err := app.DB().Select("sku", "CAST(id AS INTEGER) AS n").From("products").
		Where(dbx.HashExp{"organization": string(org), "active": true}).
		OrderBy("n").Limit(900).All(&rows); err != nil || len(rows) != 900 {
		t.Fatalf("%d active products, %v", len(rows), err)
	}
	for i, r := range rows {
		if i%3 != 0 { // every third left out, so the halves are not ranges of ids
			skus = append(skus, r.SKU)
			ids = append(ids, r.N)
		}
	}
	asked := slices.Concat(skus, skus[:50], []string{"NO-SUCH-SKU"})
	slices.Reverse(asked)

	check := func(name string, s *store.Store) {
		t.Helper()
		got, err := s.Catalog().ProductsBySKU(org, enrichment.Selection{}, asked)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var gotIDs []int64
		for _, p := range got {
			gotIDs = append(gotIDs, p.ID)
		}
		if !slices.Equal(gotIDs, ids) {
			t.Errorf("%s: %d products %v…, want %d %v…", name, len(gotIDs), head(gotIDs), len(ids), head(ids))
		}
	}
	check("outside a transaction", st)
	if err := st.Transaction(func(tx *store.Store) error {
		check("inside a transaction", tx)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// head is the start of a list of ids, for a message.
func head(ids []int64) string { return fmt.Sprint(ids[:min(5, len(ids))]) }
