package routes_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

const changesURL = "/api/enrichment/changes"

// follow reads the feed from cursor (none: its start) until it has no
// more, limit a page, and returns what it read and the last cursor.
func follow(t testing.TB, h http.Handler, key, cursor string, limit int) ([]enrichment.Change, string) {
	t.Helper()
	var all []enrichment.Change
	for {
		u := fmt.Sprintf("%s?limit=%d", changesURL, limit)
		if cursor != "" {
			u += "&after=" + url.QueryEscape(cursor)
		}
		res := request(h, http.MethodGet, u, key, "")
		if res.Code != 200 {
			t.Fatalf("GET %s: %d %s", u, res.Code, res.Body)
		}
		p := decode[enrichment.ChangePage](t, res.Body.Bytes())
		if len(p.Items) > limit || p.Next == "" {
			t.Fatalf("page of %d items for a limit of %d, next %q", len(p.Items), limit, p.Next)
		}
		all, cursor = append(all, p.Items...), p.Next
		if !p.HasMore {
			return all, cursor
		}
	}
}

func TestChangeFeed(t *testing.T) {
	f, app, h := served(t)
	key := f.A.Keys["read"]

	// from the start: every product of the export, once, in id order of creation
	start, cursor := follow(t, h, key, "", 40)
	var ids []int64
	for _, c := range start {
		if c.Change != "upsert" {
			t.Errorf("initial feed: %+v", c)
		}
		ids = append(ids, c.ProductID)
	}
	var active []string
	if err := app.DB().Select("id").From("products").Where(dbx.HashExp{"organization": string(f.A.Org), "active": true}).
		OrderBy("CAST(id AS INTEGER)").Column(&active); err != nil {
		t.Fatal(err)
	}
	if want := len(active); len(ids) != want || !slices.IsSorted(ids) {
		t.Errorf("initial feed: %d products, want the %d of the export", len(ids), want)
	}

	product := func(sku string) *core.Record {
		rec, err := app.FindRecordById("products", store.FormatID(f.A.Products[sku]))
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	save := func(rec *core.Record) {
		if err := app.Save(rec); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(what string, want ...string) {
		t.Helper()
		var got []enrichment.Change
		got, cursor = follow(t, h, key, cursor, 3)
		var desc []string
		for _, c := range got {
			desc = append(desc, c.Change+" "+c.SKU)
		}
		if !slices.Equal(desc, want) {
			t.Errorf("after %s: %v, want %v", what, desc, want)
		}
	}
	expect("nothing")

	one := product("BULK-0001")
	one.Set("name", "Renamed")
	save(one)
	expect("a rename", "upsert BULK-0001")
	one.Set("active", false)
	save(one)
	expect("a deactivation", "remove BULK-0001")
	one.Set("name", "Renamed while inactive")
	save(one)
	expect("a change of an inactive product")
	one.Set("active", true)
	save(one)
	expect("a reactivation", "upsert BULK-0001")
	if err := app.Delete(product("BULK-0002")); err != nil {
		t.Fatal(err)
	}
	expect("a deletion", "remove BULK-0002")
	created := core.NewRecord(one.Collection())
	created.Load(map[string]any{"organization": string(f.A.Org), "sku": "FRESH-1", "name": "Fresh", "active": true,
		"description": "Fresh and whole.", "images": []string{"https://img.example/fresh.jpg"}})
	save(created)
	// a product without a gap says so: "gaps" is there, empty
	if r := request(h, http.MethodGet, changesURL+"?after="+url.QueryEscape(cursor), key, ""); !strings.Contains(r.Body.String(),
		`"sku":"FRESH-1","change":"upsert"`) || !strings.Contains(r.Body.String(), `"completeness":100,"gaps":[]`) {
		t.Errorf("a complete product's upsert: %d %s", r.Code, r.Body)
	}
	expect("a creation", "upsert FRESH-1")
	b, err := app.FindRecordById("products", store.FormatID(f.B.Products["SKU-1"]))
	if err != nil {
		t.Fatal(err)
	}
	b.Set("name", "B's rename")
	save(b)
	expect("another organization's change")

	// an accepted revision changes the product
	rev := submitted(t, h, f.A.Keys["both"], submitURL, `{"sku":"BULK-0003","name":"Better"}`)[0]
	if r := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/revisions/records/%d", rev),
		fixture.SuperuserToken(t, app), `{"status":"accepted"}`); r.Code != 200 {
		t.Fatalf("accept: %d %s", r.Code, r.Body)
	}
	expect("an accepted revision", "upsert BULK-0003")

	// a page holds each product once, with its latest change
	for _, active := range []bool{false, true, false} {
		one.Set("active", active)
		save(one)
	}
	expect("three changes of one product", "remove BULK-0001")

	// the other organization's feed has its own change only
	bFeed, _ := follow(t, h, f.B.Keys["read"], "", 500)
	if last := bFeed[len(bFeed)-1]; last.SKU != "SKU-1" || slices.ContainsFunc(bFeed, func(c enrichment.Change) bool {
		return strings.HasPrefix(c.SKU, "BULK") || c.SKU == "FRESH-1"
	}) {
		t.Errorf("B's feed: %+v", bFeed)
	}

	// refusals
	stale := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("c1:%s:1:%d", f.A.Org, clock.Now(app).Add(-31*24*time.Hour).UnixMilli())))
	ofB := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("c1:%s:1:%d", f.B.Org, clock.Now(app).UnixMilli())))
	ahead := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("c1:%s:99999999:%d", f.A.Org, clock.Now(app).UnixMilli())))
	// B's change is the newest of all: a cursor of A's at it is refused as
	// any other past A's own newest, so that A cannot count B's changes
	bRec, err := app.FindRecordById("products", store.FormatID(f.B.Products["SKU-1"]))
	if err != nil {
		t.Fatal(err)
	}
	bRec.Set("name", "B's second rename")
	save(bRec)
	var aHead, head int64
	if err := app.DB().NewQuery("SELECT MAX(seq) FROM _enrichment_changes WHERE organization = {:org}").
		Bind(dbx.Params{"org": string(f.A.Org)}).Row(&aHead); err != nil {
		t.Fatal(err)
	}
	if err := app.DB().NewQuery("SELECT MAX(seq) FROM _enrichment_changes").Row(&head); err != nil || head <= aHead {
		t.Fatalf("the newest change %d, A's %d: %v", head, aHead, err)
	}
	atB := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("c1:%s:%d:%d", f.A.Org, head, clock.Now(app).UnixMilli())))
	atA := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("c1:%s:%d:%d", f.A.Org, aHead, clock.Now(app).UnixMilli())))
	for _, c := range []struct {
		name, query, key string
		status           int
		has              string
	}{
		{"no key", "", "", 401, ""},
		{"a submit-only key", "", f.A.Keys["submit"], 403, "Missing required scope: catalog:read"},
		{"a cursor of 31 days", "?after=" + stale, key, 410, "export the catalog again"},
		{"another organization's cursor", "?after=" + ofB, key, 400, `"after":{`},
		{"a cursor past the newest change", "?after=" + ahead, key, 400, `"after":{`},
		{"a cursor at another organization's newest change", "?after=" + atB, key, 400, `"after":{`},
		{"a cursor at the organization's newest change", "?after=" + atA, key, 200, `"items":[]`},
		{"not a cursor", "?after=12", key, 400, `"after":{`},
		{"limit 0", "?limit=0", key, 400, `"limit":{`},
		{"limit 1001", "?limit=1001", key, 400, `"limit":{`},
		{"limit x", "?limit=x", key, 400, `"limit":{`},
		{"POST", "", key, 405, ""},
	} {
		method := http.MethodGet
		if c.name == "POST" {
			method = http.MethodPost
		}
		res := request(h, method, changesURL+c.query, c.key, "")
		if res.Code != c.status || !strings.Contains(res.Body.String(), c.has) {
			t.Errorf("%s: %d %s", c.name, res.Code, res.Body)
		}
	}

	// after a purge, a cursor from before it is gone, and the start moves
	if _, err := app.DB().Update("_enrichment_changes", dbx.Params{"at": "2020-01-01 00:00:00.000Z"},
		dbx.NewExp("seq <= 5")).Execute(); err != nil {
		t.Fatal(err)
	}
	if n, err := store.New(app).Catalog().PurgeChanges(clock.Now(app).Add(-store.ChangesRetention)); err != nil || n < 5 {
		t.Fatalf("purged %d, %v", n, err)
	}
	early := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("c1:%s:2:%d", f.A.Org, clock.Now(app).UnixMilli())))
	if res := request(h, http.MethodGet, changesURL+"?after="+early, key, ""); res.Code != 410 {
		t.Errorf("a cursor before the purge: %d %s", res.Code, res.Body)
	}
	if res := request(h, http.MethodGet, changesURL+"?after="+url.QueryEscape(cursor), key, ""); res.Code != 200 {
		t.Errorf("a cursor after the purge: %d %s", res.Code, res.Body)
	}
}

// TestChangeFeedUnderConcurrentWrites follows the feed while several
// writers change products: every change is read, none twice.
func TestChangeFeedUnderConcurrentWrites(t *testing.T) {
	f, app, h := served(t)
	key := f.A.Keys["read"]
	_, cursor := follow(t, h, key, "", 1000)

	const writers, each = 4, 30
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				// each product is changed once, so none is coalesced
				rec, err := app.FindRecordById("products", store.FormatID(f.A.Products[fmt.Sprintf("BULK-%04d", 1+w*each+i)]))
				if err != nil {
					t.Error(err)
					return
				}
				rec.Set("name", fmt.Sprintf("writer %d change %d", w, i))
				if err := app.Save(rec); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()

	seen := map[string]int{}
	read := func() {
		var got []enrichment.Change
		got, cursor = follow(t, h, key, cursor, 7)
		for _, c := range got {
			seen[c.SKU]++
		}
	}
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		read()
	}
	read() // what committed after the last read before done
	if len(seen) != writers*each {
		t.Errorf("read %d changed products, want %d", len(seen), writers*each)
	}
	for sku, n := range seen {
		if n != 1 {
			t.Errorf("%s read %d times", sku, n)
		}
	}
}
