package store_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/dbx"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

// TestProductQueriesUseIndexes runs the store's reads of products (the
// export, with and without modifiedSince, the lookup by SKU with its
// variants; the catalog import's lookups are catalog's) and checks that every statement on products finds its
// rows through an index, never by scanning the table.
func TestProductQueriesUseIndexes(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	var queries []string
	dbs := []*dbx.DB{app.ConcurrentDB().(*dbx.DB), app.NonconcurrentDB().(*dbx.DB)}
	for _, db := range dbs {
		db.QueryLogFunc = func(_ context.Context, _ time.Duration, q string, _ *sql.Rows, _ error) {
			if strings.Contains(q, "products") && strings.HasPrefix(strings.TrimSpace(q), "SELECT") {
				queries = append(queries, q)
			}
		}
	}
	s, org := store.New(app), f.A.Org
	var skus []string
	for sku := range f.A.Products {
		skus = append(skus, sku)
	}
	_, err1 := s.Catalog().ExportPage(org, store.ExportQuery{PageSize: 100})
	_, err2 := s.Catalog().ExportPage(org, store.ExportQuery{PageSize: 100, Since: clock.Now(app).Add(-time.Hour)})
	_, err3 := s.Catalog().ProductsBySKU(org, enrichment.Selection{}, skus)
	for _, db := range dbs {
		db.QueryLogFunc = nil
	}
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(queries) < 3 {
		t.Fatalf("captured only %d statements on products: %q", len(queries), queries)
	}
	for _, q := range queries {
		var plan []struct {
			Detail string `db:"detail"`
		}
		if err := app.DB().NewQuery("EXPLAIN QUERY PLAN " + q).All(&plan); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
		for _, p := range plan {
			if (strings.HasPrefix(p.Detail, "SCAN products") || strings.HasPrefix(p.Detail, "SCAN p ") || p.Detail == "SCAN p" ||
				strings.HasPrefix(p.Detail, "SCAN m")) && !strings.Contains(p.Detail, "USING") {
				t.Errorf("a scan of products: %q in\n%s", p.Detail, q)
			}
		}
	}
}
