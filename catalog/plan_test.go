package catalog

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

// TestImportLooksUpKeysByIndex checks that a batch's stored rows are found
// by seeks on the SKU and externalId indexes even in a catalog without
// planner statistics (a first import), never by scanning the
// organization's products once per batch.
func TestImportLooksUpKeysByIndex(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Plans")
	var lookups []string
	dbs := []*dbx.DB{app.ConcurrentDB().(*dbx.DB), app.NonconcurrentDB().(*dbx.DB)}
	for _, db := range dbs {
		db.QueryLogFunc = func(_ context.Context, _ time.Duration, q string, _ *sql.Rows, _ error) {
			if strings.Contains(q, "json_each") && strings.Contains(q, "externalId") {
				lookups = append(lookups, q)
			}
		}
	}
	_, err := store.New(app).Catalog().ImportProductsByKeys(org, []string{"A", "B"}, []string{"E"})
	for _, db := range dbs {
		db.QueryLogFunc = nil
	}
	if err != nil || len(lookups) != 1 {
		t.Fatalf("captured %q, %v", lookups, err)
	}
	var plan []struct {
		Detail string `db:"detail"`
	}
	if err := app.DB().NewQuery("EXPLAIN QUERY PLAN " + lookups[0]).All(&plan); err != nil {
		t.Fatal(err)
	}
	seeks := 0
	for _, p := range plan {
		switch {
		case strings.Contains(p.Detail, "SCAN products"), strings.Contains(p.Detail, "idx_products_export"):
			t.Errorf("the organization's products scanned: %q in\n%s", p.Detail, lookups[0])
		case strings.Contains(p.Detail, "INDEX idx_products_sku (organization=? AND sku=?)"),
			strings.Contains(p.Detail, "INDEX idx_products_external_id (organization=? AND externalId=?)"):
			seeks++
		}
	}
	if seeks != 2 {
		t.Errorf("want a seek on each key's index, plan %+v", plan)
	}
}
