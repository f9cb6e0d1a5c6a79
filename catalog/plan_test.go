package catalog

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// TestImportLooksUpKeysByIndex checks that a batch's stored rows are found
// by seeks on the SKU and externalId indexes even in a catalog without
// planner statistics (a first import), never by scanning the
// organization's products once per batch.
func TestImportLooksUpKeysByIndex(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Plans")
	lookups, err := capture(app, func(q string) bool { return strings.Contains(q, "json_each") && strings.Contains(q, "externalId") }, func() error {
		_, err := (&tables{app: app}).ImportProductsByKeys(org, []string{"A", "B"}, []string{"E"})
		return err
	})
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

// TestImportReadsVariantsByIndex checks that the variants of a batch's
// masters are read through an index, never by scanning products.
func TestImportReadsVariantsByIndex(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Plans")
	lookups, err := capture(app, func(q string) bool {
		return strings.Contains(q, "variantMaster") && strings.HasPrefix(strings.TrimSpace(q), "SELECT")
	}, func() error {
		_, err := (&tables{app: app}).ImportVariantsOf(org, []int64{1, 2})
		return err
	})
	if err != nil || len(lookups) != 1 {
		t.Fatalf("captured %q, %v", lookups, err)
	}
	var plan []struct {
		Detail string `db:"detail"`
	}
	if err := app.DB().NewQuery("EXPLAIN QUERY PLAN " + lookups[0]).All(&plan); err != nil {
		t.Fatal(err)
	}
	for _, p := range plan {
		if strings.HasPrefix(p.Detail, "SCAN products") && !strings.Contains(p.Detail, "USING") {
			t.Errorf("a scan of products: %q in\n%s", p.Detail, lookups[0])
		}
	}
}

// capture runs fn and returns the statements either of app's pools ran
// that match keeps.
func capture(app core.App, keep func(q string) bool, fn func() error) ([]string, error) {
	var queries []string
	dbs := []*dbx.DB{app.ConcurrentDB().(*dbx.DB), app.NonconcurrentDB().(*dbx.DB)}
	for _, db := range dbs {
		db.QueryLogFunc = func(_ context.Context, _ time.Duration, q string, _ *sql.Rows, _ error) {
			if keep(q) {
				queries = append(queries, q)
			}
		}
	}
	err := fn()
	for _, db := range dbs {
		db.QueryLogFunc = nil
	}
	return queries, err
}
