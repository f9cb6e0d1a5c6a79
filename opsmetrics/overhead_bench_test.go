package opsmetrics_test

import (
	"encoding/json/v2"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// BenchmarkBookkeeping measures what the metrics' bookkeeping costs the
// hot paths: two apps, one with it and one without, take turns within each
// iteration (so that a busy machine slows both alike): a 1000-item
// submission (every batch superseding the previous one's proposals), an
// export page of 250 products, and a bulk rejection of 250 revisions.
// "without" unbinds the request counting and drops the counters' index;
// the proposals' count (one pass over the results) and the decisions'
// (one row written per set) stay. It reports each side's median and the
// overhead of "with" in percent:
//
//	GOTOOLCHAIN=auto go test ./opsmetrics -run '^$' -bench Bookkeeping -benchtime 40x
func BenchmarkBookkeeping(b *testing.B) {
	for _, path := range []string{"submission", "export", "decision"} {
		b.Run(path, func(b *testing.B) {
			f := fixture.Get(b)
			var ops [2]func(round int) time.Duration // with, without
			for i := range ops {
				app := f.NewApp(b)
				b.Cleanup(app.Cleanup)
				if i == 1 {
					withoutBookkeeping(b, app)
				}
				h := fixture.Serve(b, app)
				switch path {
				case "submission":
					ops[i] = func(round int) time.Duration { return benchSubmission(b, h, f, round) }
				case "export":
					ops[i] = func(int) time.Duration { return benchExport(b, h, f) }
				case "decision":
					ops[i] = decider(b, app, h, f)
				}
				ops[i](0) // warm: caches, prepared statements
			}
			var took [2][]time.Duration
			round := 0
			for b.Loop() {
				round++
				for j := range 2 {
					i := (j + round) % 2 // alternate which goes first
					took[i] = append(took[i], ops[i](round))
				}
			}
			with, without := median(took[0]), median(took[1])
			b.ReportMetric(float64(with.Microseconds())/1000, "with-ms")
			b.ReportMetric(float64(without.Microseconds())/1000, "without-ms")
			b.ReportMetric(100*(float64(with)/float64(without)-1), "overhead-%")
		})
	}
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// withoutBookkeeping takes the metrics' bookkeeping off app's hot paths.
func withoutBookkeeping(b *testing.B, app core.App) {
	for _, q := range []string{"DROP INDEX " + schema.IdxMetricCountsAll} {
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

// benchSubmission times one 1000-item submission.
func benchSubmission(b *testing.B, h http.Handler, f *fixture.Fixture, round int) time.Duration {
	body := submissionBody(round)
	t0 := clock.Wall()
	rec := fixture.Send(h, http.MethodPost, "/api/enrichment/products/submissions", routes.KeyHeader, f.A.Keys["submit"], body)
	took := clock.Wall().Sub(t0)
	if rec.Code != 200 {
		b.Fatalf("submit: %d %.200s", rec.Code, rec.Body)
	}
	return took
}

// benchExport times one export page of 250 products.
func benchExport(b *testing.B, h http.Handler, f *fixture.Fixture) time.Duration {
	req := httptest.NewRequest(http.MethodGet, "/api/enrichment/products?pageSize=250", nil)
	req.Header.Set(routes.KeyHeader, f.A.Keys["read"])
	rec := httptest.NewRecorder()
	t0 := clock.Wall()
	h.ServeHTTP(rec, req)
	took := clock.Wall().Sub(t0)
	if rec.Code != 200 {
		b.Fatalf("export: %d %.200s", rec.Code, rec.Body)
	}
	return took
}

// decider returns a step that rejects 250 fresh proposals at once through
// the group route (the one decision path), timing only the decision.
func decider(b *testing.B, app core.App, h http.Handler, f *fixture.Fixture) func(round int) time.Duration {
	reviewer := fixture.ReviewerToken(b, app, string(f.A.Org))
	clock.Set(app, func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) })
	return func(round int) time.Duration {
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
		t0 := clock.Wall()
		rec = fixture.Send(h, http.MethodPost, "/api/enrichment/review/decisions", "Authorization", reviewer, body)
		took := clock.Wall().Sub(t0)
		if rec.Code != 200 {
			b.Fatalf("decide: %d %.300s", rec.Code, rec.Body)
		}
		return took
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

// BenchmarkRequestCounting is the bookkeeping of one API request alone
// (its counter and its histogram), which the whole-request figures above
// cannot resolve on a busy machine.
func BenchmarkRequestCounting(b *testing.B) {
	app := fixture.Get(b).NewApp(b)
	b.Cleanup(app.Cleanup)
	m := opsmetrics.Of(app)
	const route = "GET /api/enrichment/products"
	for b.Loop() {
		t0 := clock.Wall()
		m.Requests.WithLabelValues(route, "2xx").Inc()
		m.Duration.WithLabelValues(route).Observe(clock.Wall().Sub(t0).Seconds())
	}
}
