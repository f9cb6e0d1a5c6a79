package routes_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

// Realtime subscribers hear of every change of a revision's state that a
// person causes, whichever route it takes: a decision through the records
// API, one through the group decisions, and the expiry of an overdue
// revision a reviewer tried to decide; a decision refused because another
// reviewer holds the revision changes nothing and is not heard of.
func TestRealtimeFollowsDecisions(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	srv := httptest.NewServer(fixture.Serve(t, app))
	t.Cleanup(srv.Close)
	h := srv.Config.Handler
	_, ann := namedReviewer(t, app, f.A.Org, "ann@example.com", "Ann")
	_, bob := namedReviewer(t, app, f.A.Org, "bob@example.com", "")
	events := subscribeRevisions(t, srv.URL, bob)
	id := func(n int64) string { return store.FormatID(n) }

	revs := submitted(t, h, f.A.Keys["submit"], submitURL,
		`{"sku":"SKU-1","name":"Live one"}`, `{"sku":"SKU-M","name":"Live two"}`, `{"sku":"SKU-NEW","name":"Live three"}`)
	expectEvents(t, "Bob", events, "create "+id(revs[0])+" pending", "create "+id(revs[1])+" pending", "create "+id(revs[2])+" pending")

	record := "/api/collections/revisions/records/"
	if res := requestAuth(h, http.MethodPost, claimsURL+id(revs[0]), ann, ""); res.Code != 200 {
		t.Fatalf("claim: %d %s", res.Code, res.Body)
	}
	if res := requestAuth(h, http.MethodPatch, record+id(revs[0]), bob, `{"status":"rejected"}`); res.Code != 409 {
		t.Fatalf("Bob's decision on Ann's claim: %d %s", res.Code, res.Body)
	}
	if res := requestAuth(h, http.MethodPatch, record+id(revs[0]), ann, `{"status":"accepted"}`); res.Code != 200 {
		t.Fatalf("Ann's decision: %d %s", res.Code, res.Body)
	}
	expectEvents(t, "Bob", events, "update "+id(revs[0])+" accepted") // note: the refused one sent nothing before it

	res := requestAuth(h, http.MethodPost, "/api/enrichment/review/decisions", bob, `{"decisions":[{"id":"`+id(revs[1])+`","status":"rejected"}]}`)
	if res.Code != 200 {
		t.Fatalf("group decision: %d %s", res.Code, res.Body)
	}
	expectEvents(t, "Bob", events, "update "+id(revs[1])+" rejected")

	run := anotherProcess(t, app)
	run("UPDATE organizations SET proposalTtlDays = 1 WHERE id = ?", string(f.A.Org))
	run("UPDATE revisions SET created = ? WHERE id = ?", store.FormatTime(clock.Now(app).Add(-48*time.Hour)), id(revs[2]))
	if res := requestAuth(h, http.MethodPatch, record+id(revs[2]), bob, `{"status":"accepted"}`); res.Code != 400 {
		t.Fatalf("an overdue decision: %d %s", res.Code, res.Body)
	}
	expectEvents(t, "Bob", events, "update "+id(revs[2])+" expired")
}
