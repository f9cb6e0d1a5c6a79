package store_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

// pendingRow is a pending revision as the reference queue sees it.
type pendingRow struct {
	ID         string `db:"id"`
	Org        string `db:"organization"`
	Client     string `db:"apiClient"`
	Product    string `db:"product"`
	SKU        string `db:"sku"`
	Confidence int    `db:"confidence"`
	Band       string `db:"confidenceBand"`
	Created    string `db:"created"`
	RowID      int64  `db:"rowID"`
	Template   string `db:"template"`
}

// referenceQueue filters and orders rows in Go, as the queue is documented
// to: the pending revisions of org matching q, in q.Sort's order.
func referenceQueue(rows []pendingRow, org enrichment.Org, q store.QueueQuery, band string) []pendingRow {
	var out []pendingRow
	for _, r := range rows {
		switch {
		case r.Org != string(org),
			q.Client != 0 && r.Client != store.FormatID(q.Client),
			band == store.BandNone && r.Band != "",
			band != store.BandAny && band != store.BandNone && r.Band != band,
			q.Template != 0 && r.Template != store.FormatID(q.Template),
			!strings.Contains(strings.ToLower(r.SKU), strings.ToLower(q.SKU)),
			slices.Contains(q.Exclude, mustID(r.ID)):
			continue
		}
		out = append(out, r)
	}
	byAge := func(a, b pendingRow) int { return cmp.Compare(a.RowID, b.RowID) } // submission order
	slices.SortFunc(out, func(a, b pendingRow) int {
		switch q.Sort {
		case "confidence-desc":
			return cmp.Or(cmp.Compare(b.Confidence, a.Confidence), byAge(a, b))
		case "confidence-asc":
			return cmp.Or(cmp.Compare(a.Confidence, b.Confidence), byAge(a, b))
		case "age-asc":
			return byAge(b, a)
		}
		return byAge(a, b)
	})
	return out
}

// TestReviewQueueMatchesAReference reads the queue under every order and a
// range of filters, a page at a time, and checks each page, the band counts,
// the rivals and the page found for a revision against the same queue made
// in Go from every pending revision; another organization's revisions never
// appear.
func TestReviewQueueMatchesAReference(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	st := store.New(app)

	// two clients of A propose for overlapping products, in several
	// batches (so that times both differ and tie), with every band and
	// without confidence; B proposes for a SKU that A also has
	name := "Better"
	submit := func(org enrichment.Org, client int64, skus []string, confidence func(i int) *int) {
		t.Helper()
		var batch []enrichment.Proposal
		for i, sku := range skus {
			batch = append(batch, enrichment.Proposal{SKU: sku, Confidence: confidence(i), Fields: enrichment.Fields{Name: &name}})
		}
		if _, err := st.Proposals().Submit(org, client, batch, store.SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	conf := func(c int) *int { return &c }
	bulk := func(from, to int) []string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, fmt.Sprintf("BULK-%04d", i))
		}
		return out
	}
	for start := 1; start <= 90; start += 30 {
		submit(f.A.Org, f.A.Clients["both"], bulk(start, start+29), func(i int) *int {
			if i%7 == 3 {
				return nil
			}
			return conf((start*13 + i*37) % 101)
		})
	}
	submit(f.A.Org, f.A.Clients["submit"], append(bulk(20, 45), "SKU-1", "SKU-M", "SKU-M-RED"), func(i int) *int { return conf(i % 3 * 40) })
	submit(f.B.Org, f.B.Clients["both"], []string{"SKU-1", "B-ONLY"}, func(int) *int { return conf(99) })
	// decided revisions leave the queue
	decided, err := app.FindRecordsByFilter("revisions", "organization = {:org} && sku ~ 'BULK-001%'", "", 4, 0, dbx.Params{"org": string(f.A.Org)})
	if err != nil || len(decided) != 4 {
		t.Fatalf("revisions to decide: %d, %v", len(decided), err)
	}
	for _, rec := range decided {
		rec.Set("status", enrichment.StatusRejected)
		if err := app.Save(rec); err != nil {
			t.Fatal(err)
		}
	}

	var rows []pendingRow
	if err := app.DB().NewQuery(`SELECT r.id, r.organization, r.apiClient, r.product, r.sku, r.confidence, r.confidenceBand,
			r.created, r._rowid_ AS rowID, COALESCE(p.attributeTemplate, '') AS template
		FROM revisions r LEFT JOIN products p ON p.id = r.product WHERE r.status = 'pending'`).All(&rows); err != nil {
		t.Fatal(err)
	}
	ofA := slices.DeleteFunc(slices.Clone(rows), func(r pendingRow) bool { return r.Org != string(f.A.Org) })
	if len(ofA) != 90+29-4 || len(rows) != len(ofA)+2 {
		t.Fatalf("seeded %d pending revisions of A and %d in all", len(ofA), len(rows))
	}
	shoes := ofA[slices.IndexFunc(ofA, func(r pendingRow) bool { return r.SKU == "SKU-1" })].Template
	rivals := map[string]int{}
	templates := map[string]string{} // product → its template
	for _, r := range rows {
		rivals[r.Product]++
		templates[r.Product] = r.Template
	}
	templated := 0 // items listed with their product's template

	var filters []store.QueueQuery
	for _, sort := range store.QueueSorts {
		for _, q := range []store.QueueQuery{
			{Band: store.BandAny},
			{Band: "80-100"},
			{Band: store.BandNone},
			{Band: "0-49", Client: f.A.Clients["both"]},
			{Band: store.BandAny, Template: mustID(shoes)},
			{Band: store.BandAny, SKU: "ulk-002"},
			{Band: store.BandAny, SKU: "_"}, // a LIKE wildcard taken as itself: no SKU has one
			{Band: "50-79", Exclude: []int64{mustID(ofA[0].ID), mustID(ofA[5].ID), mustID(ofA[40].ID)}},
		} {
			q.Sort, q.PageSize = sort, 7
			filters = append(filters, q)
		}
	}
	for _, q := range filters {
		want := referenceQueue(rows, f.A.Org, q, q.Band)
		var got []string
		for q.Page = 0; ; q.Page++ {
			page, err := st.Review().ReviewQueue([]enrichment.Org{f.A.Org}, q)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			if page.TotalElements != len(want) {
				t.Fatalf("%+v: total %d, want %d", q, page.TotalElements, len(want))
			}
			var bands []store.BandCount
			for _, band := range append(slices.Clone(enrichment.ConfidenceBands), store.BandNone) {
				bands = append(bands, store.BandCount{Band: band, Count: len(referenceQueue(rows, f.A.Org, q, band))})
			}
			if !slices.Equal(page.Bands, bands) {
				t.Errorf("%+v: band counts %v, want %v", q, page.Bands, bands)
			}
			for _, it := range page.Items {
				got = append(got, it.ID)
				n := rivals[it.Product]
				for _, x := range q.Exclude {
					if rows[slices.IndexFunc(rows, func(r pendingRow) bool { return r.ID == store.FormatID(x) })].Product == it.Product {
						n--
					}
				}
				if it.Rivals != n || it.Expand.APIClient == nil || it.Expand.Product == nil || it.Expand.Product.Name == "" {
					t.Errorf("%+v: item %+v: want %d rivals and the names of its product and client", q, it, n)
				} else if it.Expand.Product.AttributeTemplate != templates[it.Product] {
					t.Errorf("%+v: item %s: product template %q, want %q", q, it.ID, it.Expand.Product.AttributeTemplate, templates[it.Product])
				} else if it.Expand.Product.AttributeTemplate != "" {
					templated++
				}
			}
			if len(page.Items) < q.PageSize {
				break
			}
		}
		ids := make([]string, len(want))
		for i, r := range want {
			ids[i] = r.ID
		}
		if !slices.Equal(got, ids) {
			t.Fatalf("%+v: the queue lists\n%v\nwant\n%v", q, got, ids)
		}

		// the page that holds a revision; one outside the queue leaves the page asked for
		for i, id := range ids {
			if i%5 != 0 {
				continue
			}
			q.Page, q.Revision = 0, mustID(id)
			page, err := st.Review().ReviewQueue([]enrichment.Org{f.A.Org}, q)
			if err != nil {
				t.Fatal(err)
			}
			if page.Page.Page != i/q.PageSize || !slices.ContainsFunc(page.Items, func(it store.QueueItem) bool { return it.ID == id }) {
				t.Fatalf("%+v: revision at %d is on page %d, got page %d", q, i, i/q.PageSize, page.Page.Page)
			}
		}
		outside := rows[slices.IndexFunc(rows, func(r pendingRow) bool { return r.Org == string(f.B.Org) })].ID
		q.Page, q.Revision = 1, mustID(outside)
		if page, err := st.Review().ReviewQueue([]enrichment.Org{f.A.Org}, q); err != nil || page.Page.Page != 1 {
			t.Fatalf("%+v: a revision of B moved the page to %d (%v)", q, page.Page.Page, err)
		}
	}
	if templated == 0 {
		t.Error("no item was listed with its product's template")
	}

	// every organization at once (a superuser's queue)
	all, err := st.Review().ReviewQueue([]enrichment.Org{f.A.Org, f.B.Org}, store.QueueQuery{Band: store.BandAny, Sort: "age-desc", PageSize: 500})
	if err != nil || all.TotalElements != len(rows) || len(all.Items) != len(rows) {
		t.Fatalf("both organizations: %d of %d listed (%v)", len(all.Items), len(rows), err)
	}
}

// mustID reads a numeric record id of the fixture's rows.
func mustID(id string) int64 {
	n, err := enrichment.ParseID(id)
	if err != nil {
		panic(err)
	}
	return n
}
