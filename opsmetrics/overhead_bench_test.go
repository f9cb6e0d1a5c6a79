package opsmetrics_test

import (
	"encoding/json/v2"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// BenchmarkBookkeeping measures what the metrics' bookkeeping costs the
// hot paths, with it ("with") and without it ("without") in the same run:
// a 1000-item submission (every batch superseding the previous one's
// proposals), an export page of 250 products, and a bulk decision of 250
// revisions (the decision counter's trigger). "without" unbinds the request
// counting and drops the decision trigger and the counters' index; the
// proposals' count (one map pass over the results) stays. Run with -count
// to interleave them:
//
//	GOTOOLCHAIN=auto go test ./opsmetrics -run '^$' -bench Bookkeeping -count 3
func BenchmarkBookkeeping(b *testing.B) {
	for _, path := range []string{"submission", "export", "decision"} {
		for _, mode := range []string{"with", "without"} {
			b.Run(path+"/"+mode, func(b *testing.B) {
				f := fixture.Get(b)
				app := f.NewApp(b)
				b.Cleanup(app.Cleanup)
				if mode == "without" {
					withoutBookkeeping(b, app)
				}
				h := fixture.Serve(b, app)
				switch path {
				case "submission":
					benchSubmission(b, h, f)
				case "export":
					benchExport(b, h, f)
				case "decision":
					benchDecision(b, app, h, f)
				}
			})
		}
	}
}

// withoutBookkeeping takes the metrics' bookkeeping off app's hot paths.
func withoutBookkeeping(b *testing.B, app core.App) {
	for _, q := range []string{"DROP TRIGGER " + schema.DecisionCountsTrigger, "DROP INDEX " + schema.IdxMetricCountsAll} {
		if _, err := app.DB().NewQuery(q).Execute(); err != nil {
			b.Fatal(err)
		}
	}
	app.OnServe().Bind(&hook.Handler[*core.ServeEvent]{
		Priority: 100, // after the service's own OnServe handlers
		Func: func(se *core.ServeEvent) error {
			se.Router.Unbind("enrichmentCountRequests")
			return se.Next()
		},
	})
}

func submissionBody(round int) string {
	items := make([]string, 1000)
	for i := range items {
		items[i] = fmt.Sprintf(`{"sku":"BULK-%04d","confidence":90,"name":"Bench %d-%d"}`, i%fixture.BulkProducts+1, round, i)
	}
	return `{"items":[` + strings.Join(items, ",") + `]}`
}

func benchSubmission(b *testing.B, h http.Handler, f *fixture.Fixture) {
	round := 0
	for b.Loop() {
		round++
		if rec := fixture.Send(h, http.MethodPost, "/api/enrichment/products/submissions", routes.KeyHeader, f.A.Keys["submit"],
			submissionBody(round)); rec.Code != 200 {
			b.Fatalf("submit: %d %.200s", rec.Code, rec.Body)
		}
	}
}

func benchExport(b *testing.B, h http.Handler, f *fixture.Fixture) {
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/api/enrichment/products?pageSize=250", nil)
		req.Header.Set(routes.KeyHeader, f.A.Keys["read"])
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("export: %d %.200s", rec.Code, rec.Body)
		}
	}
}

// benchDecision rejects 250 fresh proposals at once through the group route
// (the one decision path); the submission that makes them is not timed.
func benchDecision(b *testing.B, app core.App, h http.Handler, f *fixture.Fixture) {
	reviewer := fixture.ReviewerToken(b, app, string(f.A.Org))
	clock.Set(app, func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		items := make([]string, fixture.BulkProducts)
		for i := range items {
			items[i] = fmt.Sprintf(`{"sku":"BULK-%04d","confidence":90,"name":"Decide %d-%d"}`, i+1, round, i)
		}
		rec := fixture.Send(h, http.MethodPost, "/api/enrichment/products/submissions", routes.KeyHeader, f.A.Keys["submit"],
			`{"items":[`+strings.Join(items, ",")+`]}`)
		if rec.Code != 200 {
			b.Fatalf("submit: %d %.200s", rec.Code, rec.Body)
		}
		ids := revisionIDs(b, rec.Body.Bytes())
		decisions := make([]string, len(ids))
		for i, id := range ids {
			decisions[i] = fmt.Sprintf(`{"id":"%s","status":"rejected","reason":"other"}`, id)
		}
		body := `{"decisions":[` + strings.Join(decisions, ",") + `]}`
		b.StartTimer()
		if rec := fixture.Send(h, http.MethodPost, "/api/enrichment/review/decisions", "Authorization", reviewer, body); rec.Code != 200 {
			b.Fatalf("decide: %d %.300s", rec.Code, rec.Body)
		}
	}
}

// revisionIDs reads the revision ids of a submission's answer, in order,
// leaving out the items that stored none.
func revisionIDs(b testing.TB, body []byte) []string {
	b.Helper()
	var out []struct {
		RevisionID *int64 `json:"revisionId"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		b.Fatal(err)
	}
	var ids []string
	for _, r := range out {
		if r.RevisionID != nil {
			ids = append(ids, fmt.Sprint(*r.RevisionID))
		}
	}
	return ids
}
