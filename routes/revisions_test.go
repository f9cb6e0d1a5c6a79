package routes_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

const revisionsURL = "/api/enrichment/revisions"

// rev is a revision written straight into the table (no hooks), so a test
// chooses its status, confidence and times freely.
type rev struct {
	org        enrichment.Org
	client     int64
	sku        string
	product    int64  // 0: no product
	confidence int    // -1: submitted without confidence
	status     string // pending, accepted, rejected, superseded or expired
	created    string // PocketBase date text
	reviewedAt string // "" unless decided by a reviewer
	closedAt   string // "" while pending; the reviewedAt of a decided one when ""
	proposed   string // JSON object of the proposed fields
	approved   string // JSON array of approvedFields; "" is []
	superseded string // JSON array of supersededFields; "" is []
	reason     string
}

// insertRevisions stores revs in order with ids from the revisions sequence
// and returns their ids.
func insertRevisions(t testing.TB, app core.App, revs ...rev) []int64 {
	t.Helper()
	first, err := store.NextIDs(app.DB(), "revisions", len(revs))
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(revs))
	orgs := map[enrichment.Org]bool{}
	for i, r := range revs {
		ids[i] = first + int64(i)
		if _, err := app.DB().Insert("revisions", r.params(ids[i])).Execute(); err != nil {
			t.Fatalf("insert revision %d: %v", i, err)
		}
		orgs[r.org] = true
	}
	recount(t, app, orgs)
	return ids
}

// recount rebuilds the metric counters of orgs after revisions were
// written around the store.
func recount(t testing.TB, app core.App, orgs map[enrichment.Org]bool) {
	t.Helper()
	for org := range orgs {
		if err := store.New(app).Metrics().RecountMetrics(org); err != nil {
			t.Fatal(err)
		}
	}
}

// params are the revision's column values.
func (r rev) params(id int64) dbx.Params {
	band, confidence := "", 0
	if r.confidence >= 0 {
		band, confidence = enrichment.ConfidenceBand(r.confidence), r.confidence
	}
	product := ""
	if r.product != 0 {
		product = store.FormatID(r.product)
	}
	proposed, approved, superseded, closed := r.proposed, r.approved, r.superseded, r.closedAt
	if proposed == "" {
		proposed = `{"name":"Proposed name"}`
	}
	if approved == "" {
		approved = "[]"
	}
	if superseded == "" {
		superseded = "[]"
	}
	if closed == "" {
		closed = r.reviewedAt
	}
	return dbx.Params{"id": store.FormatID(id), "organization": string(r.org), "apiClient": store.FormatID(r.client),
		"product": product, "sku": r.sku, "confidence": confidence, "confidenceBand": band,
		"proposed": proposed, "base": "{}", "status": r.status, "approvedFields": approved,
		"reviewedAt": r.reviewedAt, "closedAt": closed, "supersededFields": superseded, "reason": r.reason,
		"created": r.created, "updated": r.created}
}

// june is a PocketBase date text on a day of June 2024.
func june(day, hour int) string {
	return fmt.Sprintf("2024-06-%02d %02d:00:00.000Z", day, hour)
}

// pageIDs checks a revisions page's envelope and that its items are exactly
// want, in that order.
func pageIDs(pageNo, size, total int, want ...int64) func(testing.TB, []byte) {
	return func(t testing.TB, body []byte) {
		p := decode[page](t, body)
		got := make([]int64, len(p.Items))
		for i, it := range p.Items {
			got[i] = int64(it["id"].(float64))
		}
		if !slices.Equal(got, want) {
			t.Errorf("ids = %v, want %v", got, want)
		}
		if p.Page != pageNo || p.PageSize != size || p.TotalElements != total || p.TotalPages != (total+size-1)/size {
			t.Errorf("envelope = %d/%d/%d/%d, want %d/%d/%d", p.Page, p.PageSize, p.TotalElements, p.TotalPages, pageNo, size, total)
		}
	}
}

func TestRevisionsList(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	ids := seedMetrics(t, app, f)
	h := handler(t, app)
	key := f.A.Keys["both"]
	// pick returns the ids of the seeded revisions numbered n (1-based)
	pick := func(n ...int) []int64 {
		out := make([]int64, len(n))
		for i, k := range n {
			out[i] = ids[k-1]
		}
		return out
	}
	all := pick(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
	// the attribute states of the seeded revisions that propose attributes
	attributes := map[int]string{10: `{"Fit":"pending"}`, 4: `{"Color":"not_applied"}`}
	item := func(n int, sku string, product any, confidence any, status, submitted string, reviewed any, fields string) string {
		attrs := attributes[n]
		if attrs == "" {
			attrs = "{}"
		}
		decidedBy := "null"
		if status == "accepted" || status == "rejected" {
			decidedBy = `"reviewer"`
		}
		return fmt.Sprintf(`{"id":%d,"sku":%q,"productId":%v,"confidence":%v,"status":%q,"submittedAt":%q,"reviewedAt":%v,"decidedBy":%s,"closedAt":%v,"supersededBy":null,"reason":null,"comment":null,"fields":%s,"issues":[],"model":null,"sources":[],"attributes":%s,"corrections":null,"fieldReasons":null}`,
			ids[n-1], sku, product, confidence, status, submitted, reviewed, decidedBy, reviewed, fields, attrs)
	}
	p1, pm := f.A.Products["SKU-1"], f.A.Products["SKU-M"]
	q := func(params ...string) string {
		v := url.Values{}
		for i := 0; i < len(params); i += 2 {
			v.Set(params[i], params[i+1])
		}
		return revisionsURL + "?" + v.Encode()
	}
	play(t, h, []httpCase{
		{name: "no key", url: revisionsURL, status: 401},
		{name: "submit-only key lacks catalog:read", url: revisionsURL, key: f.A.Keys["submit"], status: 403,
			has: []string{`"message":"Missing required scope: catalog:read"`}},
		{name: "another client of the same organization sees none", url: revisionsURL, key: f.A.Keys["read"], status: 200,
			want: `{"items":[],"page":0,"pageSize":100,"totalElements":0,"totalPages":0}`},
		{name: "the other organization sees only its own", url: revisionsURL, key: f.B.Keys["both"], status: 200,
			check: func(t testing.TB, body []byte) {
				p := decode[page](t, body)
				if p.TotalElements != 2 || len(p.Items) != 2 {
					t.Fatalf("B sees %d revisions: %s", p.TotalElements, body)
				}
				for _, it := range p.Items {
					if id := int64(it["id"].(float64)); slices.Contains(ids, id) {
						t.Errorf("B sees A's revision %d", id)
					}
				}
			}},
		{name: "defaults: every revision in numeric id order", url: revisionsURL, key: key, status: 200, check: pageIDs(0, 100, 13, all...)},

		{name: "item shapes", url: q("pageSize", "500"), key: key, status: 200, has: []string{
			item(10, "SKU-1", p1, 90, "pending", "2024-06-03T12:00:00.123Z", "null", `{"name":"pending","attributes":"pending"}`),
			item(1, "SKU-1", p1, 30, "accepted", "2024-06-01T10:00:00.000Z", `"2024-06-02T10:00:00.000Z"`,
				`{"name":"applied","description":"applied","files":"applied"}`),
			item(7, "SKU-1", p1, 100, "accepted", "2024-06-01T10:00:00.000Z", `"2024-06-08T10:00:00.000Z"`,
				`{"slug":"applied","files":"applied"}`),
			item(4, "SKU-M", pm, 50, "accepted", "2024-06-01T10:00:00.000Z", `"2024-06-05T10:00:00.000Z"`,
				`{"name":"not_applied","slug":"applied","attributes":"not_applied"}`),
			item(2, "SKU-1", p1, 40, "rejected", "2024-06-01T10:00:00.000Z", `"2024-06-03T10:00:00.000Z"`, `{"description":"not_applied"}`),
			item(11, "SKU-GONE", "null", "null", "pending", "2024-06-06T12:00:00.000Z", "null", `{"name":"pending"}`),
			item(12, "SKU-1", p1, 0, "pending", "2024-06-09T12:00:00.000Z", "null", `{"name":"pending"}`),
		}},

		{name: "page 0 of 5", url: q("pageSize", "5"), key: key, status: 200, check: pageIDs(0, 5, 13, all[:5]...)},
		{name: "page 1 of 5", url: q("pageSize", "5", "page", "1"), key: key, status: 200, check: pageIDs(1, 5, 13, all[5:10]...)},
		{name: "page 2 of 5", url: q("pageSize", "5", "page", "2"), key: key, status: 200, check: pageIDs(2, 5, 13, all[10:]...)},
		{name: "page past the end", url: q("pageSize", "5", "page", "3"), key: key, status: 200, check: pageIDs(3, 5, 13)},
		{name: "pageSize 0 is clamped to 1", url: q("pageSize", "0", "page", "12"), key: key, status: 200, check: pageIDs(12, 1, 13, all[12])},
		{name: "pageSize 501 is clamped to 500", url: q("pageSize", "501"), key: key, status: 200, check: pageIDs(0, 500, 13, all...)},
		{name: "page not a number", url: q("page", "x"), key: key, status: 400, has: []string{`"page":{"code":"validation_not_integer"`}},
		{name: "negative page", url: q("page", "-1"), key: key, status: 400, has: []string{"Invalid page"}},
		{name: "pageSize not a number", url: q("pageSize", "1.5"), key: key, status: 400, has: []string{`"pageSize":{`}},

		{name: "status pending", url: q("status", "pending"), key: key, status: 200, check: pageIDs(0, 100, 3, pick(10, 11, 12)...)},
		{name: "status accepted", url: q("status", "accepted"), key: key, status: 200, check: pageIDs(0, 100, 5, pick(1, 4, 5, 7, 8)...)},
		{name: "status rejected", url: q("status", "rejected"), key: key, status: 200, check: pageIDs(0, 100, 5, pick(2, 3, 6, 9, 13)...)},
		{name: "unknown status", url: q("status", "approved"), key: key, status: 400,
			has: []string{`"message":"Invalid status: must be one of pending, accepted, rejected`, `"status":{"code":"validation_in_invalid"`}},
		{name: "status is case-sensitive", url: q("status", "PENDING"), key: key, status: 400, has: []string{`"status":{`}},
		{name: "sku is exact", url: q("sku", "SKU-M"), key: key, status: 200, check: pageIDs(0, 100, 2, pick(4, 5)...)},
		{name: "sku prefix matches nothing", url: q("sku", "SKU"), key: key, status: 200, check: pageIDs(0, 100, 0)},
		{name: "since: submitted or decided strictly after", url: q("since", "2024-06-08T10:00:00Z"), key: key, status: 200,
			check: pageIDs(0, 100, 4, pick(8, 9, 12, 13)...)},
		{name: "since a day earlier, epoch millis", url: q("since", "1717668000000"), key: key, status: 200, // 2024-06-06T10:00Z
			check: pageIDs(0, 100, 7, pick(6, 7, 8, 9, 11, 12, 13)...)},
		{name: "filters combine", url: q("status", "rejected", "sku", "SKU-1", "since", "2024-06-06T10:00:00", "pageSize", "2", "page", "1"),
			key: key, status: 200, check: pageIDs(1, 2, 3, pick(13)...)},
		{name: "bad since", url: q("since", "soon"), key: key, status: 400,
			has: []string{`"message":"Invalid since: expected epoch milliseconds`, `"since":{"code":"validation_invalid_time"`}},
	})
}
