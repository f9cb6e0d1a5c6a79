package routes_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// The full export starts its pages from remembered ids; after every kind of
// change, from the app or from another process, its pages must still be
// exactly those of the uncached path (modifiedSince before every product
// counts and skips with OFFSET).
func TestExportPagesFollowChanges(t *testing.T) {
	f, app, h := served(t)
	exec := anotherProcess(t, app)

	const size = 7
	walk := func(extra string) (pages [][]int64, total int) {
		t.Helper()
		for pageNo := 0; ; pageNo++ {
			res := request(h, http.MethodGet, fmt.Sprintf("%s?page=%d&pageSize=%d%s", exportURL, pageNo, size, extra), f.A.Keys["read"], "")
			if res.Code != 200 {
				t.Fatalf("page %d: %d %s", pageNo, res.Code, res.Body)
			}
			p := decode[page](t, res.Body.Bytes())
			if len(p.Items) == 0 {
				return pages, p.TotalElements
			}
			var ids []int64
			for _, it := range p.Items {
				ids = append(ids, int64(it["id"].(float64)))
			}
			pages = append(pages, ids)
		}
	}
	check := func(after string, wantTotal int) {
		t.Helper()
		got, total := walk("")
		want, wantTotalUncached := walk("&modifiedSince=1970-01-01T00:00:00Z")
		if total != wantTotal || wantTotalUncached != wantTotal {
			t.Errorf("after %s: total %d (uncached %d), want %d", after, total, wantTotalUncached, wantTotal)
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("after %s: pages differ from the uncached export:\n got  %v\n want %v", after, got, want)
		}
	}
	product := func(sku string) *core.Record {
		t.Helper()
		rec, err := app.FindRecordById("products", store.FormatID(f.A.Products[sku]))
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	save := func(rec *core.Record) {
		t.Helper()
		if err := app.Save(rec); err != nil {
			t.Fatal(err)
		}
	}

	n := activeA
	check("nothing", n)
	check("nothing, again (from the cache)", n)

	early := product("BULK-0003")
	early.Set("name", "Renamed") // not a move: the pages stay
	save(early)
	check("a rename", n)
	early.Set("active", false)
	save(early)
	n--
	check("a deactivation", n)
	early.Set("active", true)
	save(early)
	n++
	check("a reactivation", n)

	gone := []*core.Record{product("BULK-0010"), product("BULK-0020")}
	for _, rec := range gone {
		if err := app.Delete(rec); err != nil {
			t.Fatal(err)
		}
	}
	n -= 2
	check("two deletions", n)

	// an explicit id below the largest: inserted mid-export
	back := core.NewRecord(gone[0].Collection())
	back.Id = gone[0].Id
	back.Set("organization", string(f.A.Org))
	back.Set("sku", "BACK-1")
	back.Set("name", "Back in the middle")
	back.Set("active", true)
	save(back)
	n++
	check("an insert with a low explicit id", n)

	// another process: an insert mid-export as the import makes it (no
	// trigger sees inserts, so the import raises the generation itself),
	// a move to another organization, a deletion
	exec(`INSERT INTO products (id, organization, sku, name, active, updated) VALUES (?, ?, 'RAW-1', 'Raw', 1, '2026-01-01 00:00:00.000Z')`,
		gone[1].Id, string(f.A.Org))
	exec(`INSERT INTO _enrichment_generations (organization, generation) VALUES (?, 1)
		ON CONFLICT (organization) DO UPDATE SET generation = generation + 1`, string(f.A.Org))
	n++
	check("another process's insert with a low id", n)
	exec(`UPDATE products SET organization = ? WHERE id = ?`, string(f.B.Org), store.FormatID(f.A.Products["BULK-0030"]))
	n--
	check("another process moving a product to another organization", n)
	exec(`DELETE FROM products WHERE id = ?`, store.FormatID(f.A.Products["BULK-0040"]))
	n--
	check("another process's deletion", n)

	exec(`UPDATE products SET active = 0 WHERE id = ?`, store.FormatID(f.A.Products["BULK-0050"]))
	n--
	check("another process's deactivation", n)
}
