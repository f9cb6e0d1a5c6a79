package routes_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// benchRevisions is how many revisions the measured client has; another
// client of the same organization has a fifth as many, so the indexes hold
// more than the one client's entries.
const benchRevisions = 100_000

// BenchmarkAcceptanceRate measures GET /acceptance-rate, the whole request
// through the router, for a client with 100k revisions of mixed statuses,
// bands and times (about 1 KB proposed and 1 KB base each, as real ones),
// first as loaded and then after ANALYZE. It reports the median besides the
// mean.
//
//	GOTOOLCHAIN=auto go test ./routes/ -run '^$' -bench AcceptanceRate -benchtime 200x
func BenchmarkAcceptanceRate(b *testing.B) {
	f := fixture.Get(b)
	app := f.NewApp(b)
	b.Cleanup(app.Cleanup)
	start := clock.Wall()
	loadRevisions(b, app, f.A.Org, f.A.Clients["both"], benchRevisions)
	loadRevisions(b, app, f.A.Org, f.A.Clients["submit"], benchRevisions/5)
	b.Logf("loaded %d revisions in %v", benchRevisions*6/5, time.Since(start).Round(time.Millisecond))
	h := handler(b, app)
	key := f.A.Keys["both"]

	queries := []struct{ name, query string }{
		{"unbounded", ""},
		{"quarter", "?since=2024-04-01T00:00:00Z&until=2024-07-01T00:00:00Z"},
		{"since-week", "?since=2024-12-24T00:00:00Z"},
		{"quarter-model", "?since=2024-04-01T00:00:00Z&until=2024-07-01T00:00:00Z&model=writer-1"},
		{"edges-model-version", "?since=2024-04-01T00:30:00Z&until=2024-07-01T00:30:00Z&model=writer-1&modelVersion=v5"},
	}
	for _, stats := range []string{"loaded", "analyzed"} {
		if stats == "analyzed" {
			if _, err := app.DB().NewQuery("ANALYZE").Execute(); err != nil {
				b.Fatal(err)
			}
		}
		for _, q := range queries {
			b.Run(stats+"/"+q.name, func(b *testing.B) {
				var took []time.Duration
				for b.Loop() {
					t0 := clock.Wall()
					res := request(h, "GET", metricsURL+q.query, key, "")
					took = append(took, time.Since(t0))
					if res.Code != 200 || !strings.Contains(res.Body.String(), `"totalSubmitted":`) {
						b.Fatalf("status %d: %s", res.Code, res.Body)
					}
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
			})
		}
	}
}

// loadRevisions inserts n revisions of client in one transaction with one
// prepared statement: a year of submissions, about 60% decided within ten
// days, one in ten without confidence. The sequence is seeded, so every run
// loads the same data.
func loadRevisions(b *testing.B, app core.App, org enrichment.Org, client int64, n int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(uint64(client), 42))
	proposed := `{"name":"Enriched product name","description":"` + strings.Repeat("A longer, enriched description. ", 25) +
		`","attributes":[{"attribute":"Color","detail":"Red"},{"attribute":"Material","detail":"Leather"}]}`
	base := `{"name":"Old name","description":"` + strings.Repeat("The description before enrichment. ", 25) +
		`","attributes":[{"attribute":"Color","detail":"Blue"},{"attribute":"Size","detail":"42"}]}`
	year := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	err := app.RunInTransaction(func(tx core.App) error {
		first, err := store.NextIDs(tx.DB(), "revisions", n)
		if err != nil {
			return err
		}
		insert := tx.DB().NewQuery(`INSERT INTO {{revisions}} ([[id]], [[organization]], [[apiClient]], [[product]], [[sku]],
			[[confidence]], [[confidenceBand]], [[proposed]], [[base]], [[status]], [[approvedFields]], [[reviewedAt]], [[model]], [[decisionMask]], [[created]], [[updated]])
			VALUES ({:id}, {:org}, {:client}, '', {:sku}, {:confidence}, {:band}, {:proposed}, {:base}, {:status}, {:approved},
			{:reviewedAt}, {:model}, {:mask}, {:created}, {:created})`).Prepare()
		defer insert.Close()
		for i := range n {
			created := year.Add(time.Duration(rng.Int64N(int64(365 * 24 * time.Hour))))
			confidence, band := 0, ""
			if rng.IntN(10) > 0 {
				confidence = rng.IntN(101)
				band = enrichment.ConfidenceBand(confidence)
			}
			status, reviewedAt, approved, mask := enrichment.StatusPending, "", "[]", enrichment.FieldMask(0)
			proposedFields := []string{"name", "description", "attributes"}
			switch r := rng.IntN(100); {
			case r < 35:
				status, approved = enrichment.StatusAccepted, `["name","description"]`
				mask = enrichment.NewFieldMask(proposedFields, []string{"name", "description"}, nil)
			case r < 60:
				status, mask = enrichment.StatusRejected, enrichment.NewFieldMask(proposedFields, nil, nil)
			}
			if status != enrichment.StatusPending {
				reviewedAt = store.FormatTime(created.Add(time.Duration(rng.Int64N(int64(240 * time.Hour)))))
			}
			// note: nine in ten name one of three models, in a version a month
			var model any
			if i%10 != 9 {
				model = fmt.Sprintf(`{"name":"writer-%d","version":"v%d"}`, i%3, created.Month())
			}
			_, err := insert.Bind(dbx.Params{"id": store.FormatID(first + int64(i)), "org": string(org), "model": model,
				"client": store.FormatID(client), "sku": fmt.Sprintf("BULK-%04d", rng.IntN(fixture.BulkProducts)+1),
				"confidence": confidence, "band": band, "proposed": proposed, "base": base, "status": status,
				"approved": approved, "reviewedAt": reviewedAt, "mask": int(mask), "created": store.FormatTime(created)}).Execute()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatalf("load revisions: %v", err)
	}
}
