package jobs_test

import (
	"encoding/json/v2"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/jobs"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// trustWorld is a test app with organization A's reviewer signed in and a
// trust worker stepped by hand.
type trustWorld struct {
	t     testing.TB
	f     *fixture.Fixture
	app   *tests.TestApp
	h     http.Handler
	token string // reviewer of A
	trust *jobs.Trust
}

func newTrustWorld(t testing.TB) *trustWorld {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	trust := jobs.NewTrust(app)
	// note: the highest draw there is, so an acceptance is audited only at
	// auditRate 1 (the audit tests): a random draw made the other tests'
	// expectations hold only most of the time
	trust.Draw = func() float64 { return math.Nextafter(1, 0) }
	return &trustWorld{t: t, f: f, app: app, h: fixture.Serve(t, app),
		token: fixture.ReviewerToken(t, app, string(f.A.Org)), trust: trust}
}

// submit sends items (JSON objects) with key and returns the revision ids
// in order ("" where none was stored).
func (w *trustWorld) submit(key string, items ...string) []string {
	w.t.Helper()
	rec := fixture.Send(w.h, http.MethodPost, "/api/enrichment/products/submissions", routes.KeyHeader, key,
		`{"items":[`+strings.Join(items, ",")+`]}`)
	if rec.Code != 200 {
		w.t.Fatalf("submit: %d %s", rec.Code, rec.Body)
	}
	var out []struct {
		RevisionID *int64 `json:"revisionId"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		w.t.Fatal(err)
	}
	ids := make([]string, len(out))
	for i, r := range out {
		if r.RevisionID != nil {
			ids[i] = fmt.Sprint(*r.RevisionID)
		}
	}
	return ids
}

// bulk is n items proposing a name for BULK products from first on, at
// confidence.
func bulk(first, n, confidence int, extra string) []string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"sku":"BULK-%04d","confidence":%d,"name":"Better name %d"%s}`, first+i, confidence, first+i, extra)
	}
	return items
}

// decide saves a person's decision on revision id through the records API.
func (w *trustWorld) decide(id, body string) {
	w.t.Helper()
	rec := w.patch("/api/collections/revisions/records/"+id, body)
	if rec.Code != 200 {
		w.t.Fatalf("decide %s with %s: %d %s", id, body, rec.Code, rec.Body)
	}
}

// send makes a request with the reviewer's token.
func (w *trustWorld) send(method, url, body string) *httptest.ResponseRecorder {
	return fixture.Send(w.h, method, url, "Authorization", w.token, body)
}

func (w *trustWorld) patch(url, body string) *httptest.ResponseRecorder {
	return w.send(http.MethodPatch, url, body)
}

// policy creates a trust policy through the records API as A's reviewer
// and returns its record.
func (w *trustWorld) policy(body string) *core.Record {
	w.t.Helper()
	rec := w.send(http.MethodPost, "/api/collections/trust_policies/records", body)
	if rec.Code != 200 {
		w.t.Fatalf("create policy %s: %d %s", body, rec.Code, rec.Body)
	}
	var created struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil {
		w.t.Fatal(err)
	}
	return w.record(schema.TrustPolicies, created.ID)
}

// record reads a record as stored now.
func (w *trustWorld) record(collection, id string) *core.Record {
	w.t.Helper()
	r, err := w.app.FindRecordById(collection, id)
	if err != nil {
		w.t.Fatalf("find %s %s: %v", collection, id, err)
	}
	return r
}

// earn gives client "both" of A n people-accepted name proposals at
// confidence 95 on BULK products from first on.
func (w *trustWorld) earn(first, n int) {
	w.t.Helper()
	for _, id := range w.submit(w.f.A.Keys["both"], bulk(first, n, 95, "")...) {
		w.decide(id, `{"status":"accepted"}`)
	}
}

// status is a revision's status, decidedBy and audit as stored.
func (w *trustWorld) status(id string) string {
	r := w.record(schema.Revisions, id)
	return r.GetString("status") + "/" + r.GetString("decidedBy") + "/" + r.GetString("audit")
}

// namePolicyAtStillClock is a trust world whose clock stands still at
// *now (which the test may move), where client "both" of A has earned
// people-accepted names, with a policy on its names (at least 20
// reviewed, a target of 0.8) stepped once.
func namePolicyAtStillClock(t testing.TB, earned int) (*trustWorld, *core.Record, *time.Time) {
	w := newTrustWorld(t)
	now := clock.Now(w.app)
	clock.Set(w.app, func() time.Time { return now })
	w.earn(1, earned)
	p := w.policy(fmt.Sprintf(`{"organization":"%s","apiClient":"%d","fields":["name"],"minConfidence":80,
		"minReviewed":20,"targetPrecision":0.8,"auditRate":0.01,"enabled":true}`, w.f.A.Org, w.f.A.Clients["both"]))
	w.trust.Step()
	return w, p, &now
}
