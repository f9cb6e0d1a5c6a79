package opsmetrics_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/store"
)

// submit sends items with A's key and returns the revision ids.
func (w *world) submit(items string) []string {
	w.t.Helper()
	rec := fixture.Send(w.h, http.MethodPost, "/api/enrichment/products/submissions", routes.KeyHeader, w.f.A.Keys["both"],
		`{"items":[`+items+`]}`)
	if rec.Code != 200 {
		w.t.Fatalf("submit: %d %s", rec.Code, rec.Body)
	}
	return revisionIDs(w.t, rec.Body.Bytes())
}

// series is a series' reader and how far an event should move it.
type series struct {
	read func() float64
	want float64
}

// movedAll fails the test unless each series moved by its want across step.
func (w *world) movedAll(all map[string]series, step func()) {
	w.t.Helper()
	before := map[string]float64{}
	for what, s := range all {
		before[what] = s.read()
	}
	step()
	for what, s := range all {
		if got := s.read() - before[what]; got != s.want {
			w.t.Errorf("%s moved by %v, want %v", what, got, s.want)
		}
	}
}

// moved fails the test unless the series moved by want across step.
func (w *world) moved(what string, read func() float64, want float64, step func()) {
	w.t.Helper()
	before := read()
	step()
	if got := read() - before; got != want {
		w.t.Errorf("%s moved by %v, want %v", what, got, want)
	}
}

// Each series of the queue and the decisions moves when its event happens.
func TestSeriesMoveWithTheirEvents(t *testing.T) {
	w := newWorld(t, opsmetrics.Config{})
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	clock.Set(w.app, func() time.Time { return now })
	org := string(w.f.A.Org)
	pending := func() float64 { return w.value("enrichment_pending_revisions") }
	orgPending := func() float64 { return w.value("enrichment_organization_pending_revisions", "organization", org) }
	created := func() float64 { return w.count("enrichment_proposals_total", "status", enrichment.ResultCreated) }
	unmatched := func() float64 { return w.count("enrichment_proposals_total", "status", enrichment.ResultUnmatched) }
	submits := func() float64 {
		return w.count("enrichment_http_requests_total", "route", "POST /api/enrichment/products/submissions", "code", "2xx")
	}
	timed := func() float64 {
		return w.count("enrichment_http_request_duration_seconds", "route", "POST /api/enrichment/products/submissions")
	}

	// a submission: proposals stored, the queue grows, the request counted
	var ids []string
	w.movedAll(map[string]series{"pending": {pending, 3}, "A's pending": {orgPending, 3}, "CREATED": {created, 3},
		"UNMATCHED": {unmatched, 1}, "submission requests": {submits, 1}, "submission timings": {timed, 1}}, func() {
		ids = w.submit(`{"sku":"SKU-1","confidence":90,"name":"Metrics one"},
			{"sku":"SKU-M-RED","confidence":90,"name":"Metrics red"},
			{"sku":"SKU-M-BLUE","confidence":90,"name":"Metrics blue"},
			{"sku":"NO-SUCH-SKU","confidence":90,"name":"Nobody"}`)
	})
	if len(ids) != 3 {
		t.Fatalf("revisions %v", ids)
	}
	// the queue ages with the clock
	now = now.Add(2 * time.Hour)
	if age := w.value("enrichment_organization_oldest_pending_age_seconds", "organization", org); age < 7200 {
		t.Errorf("A's oldest pending age %v, want at least 7200", age)
	}
	if age := w.value("enrichment_oldest_pending_age_seconds"); age < 7200 {
		t.Errorf("oldest pending age %v, want at least 7200", age)
	}

	// a person's decision (the records API, as the dashboard saves it)
	reviewer := fixture.ReviewerToken(t, w.app, org)
	byPerson := func() float64 {
		return w.value("enrichment_decisions_total", "decided_by", enrichment.DecidedByReviewer)
	}
	byPolicy := func() float64 { return w.value("enrichment_decisions_total", "decided_by", enrichment.DecidedByPolicy) }
	w.moved("decisions by a person", byPerson, 1, func() {
		rec := fixture.Send(w.h, http.MethodPatch, "/api/collections/revisions/records/"+ids[0], "Authorization", reviewer, `{"status":"accepted"}`)
		if rec.Code != 200 {
			t.Fatalf("decide: %d %s", rec.Code, rec.Body)
		}
	})
	if got := byPolicy(); got != 0 {
		t.Errorf("decisions by a policy %v after a person's", got)
	}

	// a policy's decision, drawn for audit (the set path the trust worker uses)
	audits := func() float64 { return w.value("enrichment_audits_waiting") }
	w.moved("audits waiting", audits, 1, func() {
		w.moved("decisions by a policy", byPolicy, 1, func() {
			out, err := store.New(w.app).Review().DecideSet(w.f.A.Org,
				[]store.SetDecision{{Revision: ids[1], Decision: enrichment.Decision{Status: enrichment.StatusAccepted}, Audit: true}},
				store.SetDecider{Name: "policy:metrics", Policy: "metrics", Service: true}, now)
			if err != nil || out[0].Err != nil {
				t.Fatalf("policy decision: %v %+v", err, out)
			}
		})
	})
	if got := orgPending(); got != 1 {
		t.Errorf("A's pending after two decisions: %v, want 1", got)
	}

	// a group decision counts each revision it decides, not the group
	w.moved("decisions by a person in a group", byPerson, 3, func() {
		more := w.submit(`{"sku":"BULK-0001","confidence":90,"name":"Group one"},
			{"sku":"BULK-0002","confidence":90,"name":"Group two"},
			{"sku":"BULK-0003","confidence":90,"name":"Group three"}`)
		body := fmt.Sprintf(`{"decisions":[{"id":"%s","status":"rejected","reason":"other"},{"id":"%s","status":"rejected","reason":"other"},`+
			`{"id":"%s","status":"rejected","reason":"other"}]}`, more[0], more[1], more[2])
		if rec := fixture.Send(w.h, http.MethodPost, "/api/enrichment/review/decisions", "Authorization", reviewer, body); rec.Code != 200 {
			t.Fatalf("group decision: %d %s", rec.Code, rec.Body)
		}
	})

	// a trust policy is created learning
	learning := func() float64 { return w.value("enrichment_trust_policies", "state", enrichment.PolicyLearning) }
	w.moved("learning policies", learning, 1, func() {
		rec := fixture.Send(w.h, http.MethodPost, "/api/collections/trust_policies/records", "Authorization", reviewer,
			fmt.Sprintf(`{"organization":"%s","apiClient":"%d","fields":["name"],"minConfidence":80,"minReviewed":50,
				"targetPrecision":0.9,"auditRate":0.01,"enabled":true}`, org, w.f.A.Clients["both"]))
		if rec.Code != 200 {
			t.Fatalf("create policy: %d %s", rec.Code, rec.Body)
		}
	})

	if size := w.value("enrichment_db_size_bytes"); size <= 0 {
		t.Errorf("data.db size %v", size)
	}
	if failed := w.value("enrichment_scrape_errors"); failed != 0 {
		t.Errorf("scrape errors %v", failed)
	}
}

// A key's refused requests count as rate-limited, by route and status class
// too; raw paths never become labels.
func TestRateLimitRefusalsCount(t *testing.T) {
	w := newWorld(t, opsmetrics.Config{})
	clock.Set(w.app, func() time.Time { return time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC) }) // no refill
	if _, err := w.app.DB().NewQuery("UPDATE {{api_clients}} SET [[rateLimit]] = 1").Execute(); err != nil {
		t.Fatal(err)
	}
	code := func(route, class string) func() float64 {
		return func() float64 { return w.count("enrichment_http_requests_total", "route", route, "code", class) }
	}
	w.movedAll(map[string]series{
		"rate-limited":          {func() float64 { return w.value("enrichment_rate_limited_total") }, 1},
		"2xx of the export":     {code("GET /api/enrichment/products", "2xx"), 2},
		"4xx of the export":     {code("GET /api/enrichment/products", "4xx"), 1},
		"an unknown path's 4xx": {code("GET /api/enrichment/{path...}", "4xx"), 1},
	}, func() {
		for range 3 { // a bucket of 2, then a refusal
			fixture.Send(w.h, http.MethodGet, "/api/enrichment/products?pageSize=1", routes.KeyHeader, w.f.A.Keys["read"], "")
		}
		fixture.Send(w.h, http.MethodGet, "/api/enrichment/no-such-thing/12345", "", "", "")
	})
}
