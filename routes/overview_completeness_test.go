package routes_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/jobs"
	"github.com/catalog-enrichment/enrichment/store"
)

// TestOverviewCompleteness: the overview gives the catalog's completeness
// now (the mean over active products: organization A's 257 add up to 175,
// 0.7), the days the job measured and today, and a reviewer sees their own
// organization's alone.
func TestOverviewCompleteness(t *testing.T) {
	f, app, h := served(t)
	c := stopClock(app)
	now := c.now()
	c.set(now.AddDate(0, 0, -2))
	jobs.RecordCompleteness(app)
	c.set(now)
	// B completes one of its two products the day before: 50 then
	if _, err := app.DB().NewQuery(fmt.Sprintf(`INSERT INTO _enrichment_completeness_history VALUES ('%s', '%s', 75, 2)`,
		f.B.Org, now.AddDate(0, 0, -1).UTC().Format(time.DateOnly))).Execute(); err != nil {
		t.Fatal(err)
	}
	type overview struct {
		Completeness struct {
			Completeness float64 `json:"completeness"`
			Products     int     `json:"products"`
			History      []struct {
				Day          string  `json:"day"`
				Completeness float64 `json:"completeness"`
				Products     int     `json:"products"`
			} `json:"history"`
		} `json:"completeness"`
	}
	read := func(token string) overview {
		t.Helper()
		r := requestAuth(h, http.MethodGet, overviewURL, token, "")
		if r.Code != 200 {
			t.Fatalf("overview: %d %s", r.Code, r.Body)
		}
		return decode[overview](t, r.Body.Bytes())
	}
	day := func(d int) string { return now.AddDate(0, 0, d).UTC().Format(time.DateOnly) }
	a := read(fixture.ReviewerToken(t, app, string(f.A.Org))).Completeness
	if a.Completeness != 0.7 || a.Products != 257 || len(a.History) != 2 ||
		a.History[0].Day != day(-2) || a.History[0].Completeness != 0.7 || a.History[1].Day != day(0) {
		t.Errorf("A's completeness: %+v", a)
	}
	// every organization: A's 257 at 0.7 and B's 2 at 0 (no description, no images) today
	all := read(fixture.SuperuserToken(t, app)).Completeness
	want := []string{day(-2), day(-1), day(0)}
	if all.Products != 259 || all.Completeness != round1(0.7*257/259) || len(all.History) != 3 {
		t.Fatalf("every organization: %+v", all)
	}
	for i, d := range all.History {
		if d.Day != want[i] {
			t.Errorf("history day %d: %s, want %s", i, d.Day, want[i])
		}
	}
	if all.History[1].Completeness != 75 || all.History[1].Products != 2 {
		t.Errorf("B's day alone: %+v", all.History[1])
	}
	// the job measures each organization once a day
	if n, err := store.New(app).Catalog().RecordCompleteness(now); err != nil || n != 2 {
		t.Fatalf("record: %d %v", n, err)
	}
	var rows int
	if err := app.DB().NewQuery(`SELECT COUNT(*) FROM _enrichment_completeness_history`).Row(&rows); err != nil || rows != 5 {
		t.Errorf("%d rows after measuring twice on one day, want 5 (%v)", rows, err)
	}
}

func round1(x float64) float64 { return float64(int(x*10+0.5)) / 10 }
