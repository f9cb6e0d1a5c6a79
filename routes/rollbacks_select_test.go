package routes_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

// The window (strict on both sides, by decision time) and the model
// filters choose which of a client's acceptances a rollback reverts; two
// acceptances of the same field are undone newest first, back to the
// value before the older one.
func TestRollbackSelection(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	k := rollbackKit{t, app, store.New(app)}
	v1, v2 := &enrichment.Model{Name: "writer", Version: "1"}, &enrichment.Model{Name: "writer", Version: "2"}
	old := k.accept(f.A, "both", enrichment.Proposal{SKU: "BULK-0001", Fields: enrichment.Fields{Name: ptr("Old one")}, Model: v1})
	ofV1 := k.accept(f.A, "both", enrichment.Proposal{SKU: "BULK-0002", Fields: enrichment.Fields{Name: ptr("Two by 1")}, Model: v1})
	ofV2 := k.accept(f.A, "both", enrichment.Proposal{SKU: "BULK-0003", Fields: enrichment.Fields{Name: ptr("Three by 2")}, Model: v2})
	first := k.accept(f.A, "both", enrichment.Proposal{SKU: "SKU-NEW", Fields: enrichment.Fields{Name: ptr("Newer")}})
	second := k.accept(f.A, "both", enrichment.Proposal{SKU: "SKU-NEW", Fields: enrichment.Fields{Name: ptr("Newest of all")}})
	other := k.accept(f.A, "submit", enrichment.Proposal{SKU: "BULK-0004", Fields: enrichment.Fields{Name: ptr("Other client")}})
	// one decision two days ago (going around the store, so a recount)
	twoDaysAgo := clock.Now(app).Add(-48 * time.Hour)
	if _, err := app.DB().Update(schema.Revisions, dbx.Params{"reviewedAt": store.FormatTime(twoDaysAgo)},
		dbx.HashExp{"id": old}).Execute(); err != nil {
		t.Fatal(err)
	}
	if err := k.st.Metrics().RecountMetrics(f.A.Org); err != nil {
		t.Fatal(err)
	}
	h := handler(t, app)
	reviewer := fixture.ReviewerToken(t, app, string(f.A.Org))
	client := f.A.Clients["both"]
	at := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	dayAgo := clock.Now(app).Add(-24 * time.Hour)
	steps := []struct {
		name, body, want string
		reverted         []string
	}{
		{"writer 1 of the last day", fmt.Sprintf(`{"apiClient":%d,"since":"%s","model":"writer","modelVersion":"1"}`, client, at(dayAgo)),
			`{"revisions":1,"restored":1,"conflicts":0,"products":1}`, []string{ofV1}},
		{"version 2 of any model", fmt.Sprintf(`{"apiClient":"%d","since":%d,"modelVersion":"2"}`, client, dayAgo.UnixMilli()),
			`{"revisions":1,"restored":1,"conflicts":0,"products":1}`, []string{ofV2}},
		{"a window that ends before the older decision", fmt.Sprintf(`{"apiClient":%d,"since":"%s","until":"%s"}`, client,
			at(twoDaysAgo.Add(-time.Hour)), at(twoDaysAgo)), `{"revisions":0,"restored":0,"conflicts":0,"products":0}`, nil},
		{"the rest of the last day: both of SKU-NEW, newest first", fmt.Sprintf(`{"apiClient":%d,"since":"%s"}`, client, at(dayAgo)),
			`{"revisions":2,"restored":2,"conflicts":0,"products":1}`, []string{first, second}},
		{"the window around the older decision", fmt.Sprintf(`{"apiClient":%d,"since":"%s","until":"%s"}`, client,
			at(twoDaysAgo.Add(-time.Hour)), at(twoDaysAgo.Add(time.Hour))), `{"revisions":1,"restored":1,"conflicts":0,"products":1}`, []string{old}},
	}
	for _, s := range steps {
		res := requestAuth(h, http.MethodPost, rollbacksURL, reviewer, s.body)
		if res.Code != 200 || res.Body.String() != s.want {
			t.Fatalf("%s: %d %s, want %s", s.name, res.Code, res.Body, s.want)
		}
		for _, id := range s.reverted {
			if got := k.status(id); got != enrichment.StatusReverted {
				t.Errorf("%s: revision %s is %s", s.name, id, got)
			}
		}
	}
	if got := k.product(f.A, "SKU-NEW").GetString("name"); got != "Newest" {
		t.Errorf("SKU-NEW's name %q, want the one before both acceptances", got)
	}
	if got := k.status(other); got != enrichment.StatusAccepted {
		t.Errorf("another client's revision is %s", got)
	}
	m := request(h, http.MethodGet, "/api/enrichment/acceptance-rate?model=writer", f.A.Keys["both"], "").Body.String()
	if want := `"byModel":[{"name":"writer","version":"1","reviewed":2,"accepted":0,"acceptanceRate":0},` +
		`{"name":"writer","version":"2","reviewed":1,"accepted":0,"acceptanceRate":0}]`; !contains(m, want) || !contains(m, `"reverted":3,`) {
		t.Errorf("acceptance-rate of writer: %s, want %s", m, want)
	}
}

// Realtime subscribers to revisions hear an update for each revision a
// rollback reverts.
func TestRollbackLive(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	srv := httptest.NewServer(fixture.Serve(t, app))
	t.Cleanup(srv.Close)
	reviewer := fixture.ReviewerToken(t, app, string(f.A.Org))
	events := subscribeRevisions(t, srv.URL, reviewer)
	k := rollbackKit{t, app, store.New(app)}
	id := k.submit(f.A, "both", enrichment.Proposal{SKU: "BULK-0001", Fields: enrichment.Fields{Name: ptr("Live")}})
	expectEvents(t, "reviewer", events, "create "+id+" pending")
	k.decide(id, map[string]any{"status": "accepted"})
	expectEvents(t, "reviewer", events, "update "+id+" accepted")
	res := requestAuth(srv.Config.Handler, http.MethodPost, rollbacksURL, reviewer, `{"revision":`+id+`}`)
	if res.Code != 200 {
		t.Fatalf("rollback: %d %s", res.Code, res.Body)
	}
	expectEvents(t, "reviewer", events, "update "+id+" reverted")
}
