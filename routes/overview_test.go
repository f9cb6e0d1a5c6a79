package routes_test

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

const overviewURL = "/api/enrichment/review/overview"

// The reviewers' overview shows each organization only its own clients, with
// the figures of GET /acceptance-rate.
func TestReviewOverview(t *testing.T) {
	f, app, h := served(t)
	st := store.New(app)
	name := "Better"
	conf := 90
	for _, tenant := range []fixture.Tenant{f.A, f.B} {
		if _, err := st.Proposals().Submit(tenant.Org, tenant.Clients["both"], []enrichment.Proposal{
			{SKU: "SKU-1", Confidence: &conf, Fields: enrichment.Fields{Name: &name}},
		}, store.SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	super := fixture.SuperuserToken(t, app)
	reviewerA, reviewerB := fixture.ReviewerToken(t, app, string(f.A.Org)), fixture.ReviewerToken(t, app, string(f.B.Org))
	clientOf := func(tenant fixture.Tenant) string {
		return fmt.Sprintf(`{"id":%d,"name":"both","active":true,"organization":%s`, tenant.Clients["both"], tenant.Org)
	}
	pendingOne := `"metrics":{"totalSubmitted":1,"reviewed":0,"accepted":0,"rejected":0,"pending":1`

	checkReviewerCases(t, h, []reviewerCase{
		{name: "no token", url: overviewURL, status: 401},
		{name: "an API key instead", url: overviewURL, key: f.A.Keys["both"], status: 401},
		{name: "reviewer of A", url: overviewURL, token: reviewerA, status: 200,
			want: []string{clientOf(f.A), pendingOne, `"all":{"totalSubmitted":1,`}, absent: []string{clientOf(f.B)}},
		{name: "reviewer of B", url: overviewURL, token: reviewerB, status: 200,
			want: []string{clientOf(f.B)}, absent: []string{clientOf(f.A)}},
		{name: "reviewer of A asking for B", url: overviewURL + "?organization=" + string(f.B.Org), token: reviewerA, status: 404,
			absent: []string{clientOf(f.B)}},
		{name: "reviewer of A naming A", url: overviewURL + "?organization=" + string(f.A.Org), token: reviewerA, status: 200,
			want: []string{clientOf(f.A)}},
		{name: "superuser: every organization", url: overviewURL, token: super, status: 200,
			want: []string{clientOf(f.A), clientOf(f.B), `"all":{"totalSubmitted":2,`}},
		{name: "superuser: organization B", url: overviewURL + "?organization=" + string(f.B.Org), token: super, status: 200,
			want: []string{clientOf(f.B)}, absent: []string{clientOf(f.A)}},
		{name: "POST", method: http.MethodPost, url: overviewURL, token: super, status: 405},
	})

	// the same figures as the client's own metrics, once something is decided
	if r := requestAuth(h, http.MethodPatch, "/api/collections/revisions/records/1", super, `{"status":"rejected"}`); r.Code != 200 {
		t.Fatalf("decide: %d %s", r.Code, r.Body)
	}
	own := decode[enrichment.AcceptanceMetrics](t, request(h, http.MethodGet, "/api/enrichment/acceptance-rate", f.A.Keys["both"], "").Body.Bytes())
	o := decode[enrichment.Overview](t, requestAuth(h, http.MethodGet, overviewURL, reviewerA, "").Body.Bytes())
	if own.ByModel == nil {
		t.Error("acceptance-rate without byModel")
	}
	own.ByModel = nil // note: only acceptance-rate lists the models
	if len(o.Clients) != 1 || !reflect.DeepEqual(o.Clients[0].Metrics, own) || own.Rejected != 1 {
		t.Errorf("overview %+v, the client's own metrics %+v", o.Clients, own)
	}
}

// The overview's weeks count what GET /acceptance-rate counts in each week's
// window, and its confidence buckets add up to the bands.
func TestReviewOverviewTrends(t *testing.T) {
	f, app, h := served(t)
	st := store.New(app)
	now := clock.Now(app).UTC()
	// confidence, status, days ago (of reviewedAt)
	decisions := []struct {
		confidence int
		status     string
		daysAgo    int
	}{
		{95, "accepted", 0}, {100, "accepted", 1}, {85, "rejected", 3}, {72, "accepted", 8}, {55, "rejected", 9},
		{40, "rejected", 20}, {5, "accepted", 40}, {63, "accepted", 76}, {90, "accepted", 78}, {99, "rejected", 200},
		{-1, "accepted", 2}, {-1, "rejected", 15},
	}
	var items []enrichment.Proposal
	for i, d := range decisions {
		name := fmt.Sprintf("Trend %d", i)
		p := enrichment.Proposal{SKU: fmt.Sprintf("BULK-%04d", i+1), Fields: enrichment.Fields{Name: &name}}
		if d.confidence >= 0 {
			p.Confidence = &d.confidence
		}
		items = append(items, p)
	}
	// a pending one and one superseded by it: never reviewed
	items = append(items, enrichment.Proposal{SKU: "SKU-NEW", Fields: enrichment.Fields{Name: new(string)}})
	results, err := st.Proposals().Submit(f.A.Org, f.A.Clients["both"], items, store.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	super := fixture.SuperuserToken(t, app)
	for i, d := range decisions {
		id := store.FormatID(*results[i].RevisionID)
		if r := requestAuth(h, http.MethodPatch, "/api/collections/revisions/records/"+id, super, `{"status":"`+d.status+`"}`); r.Code != 200 {
			t.Fatalf("decide %s: %d %s", id, r.Code, r.Body)
		}
		at := store.FormatTime(now.Add(-time.Duration(d.daysAgo)*24*time.Hour - time.Minute))
		if _, err := app.DB().Update("revisions", dbx.Params{"reviewedAt": at, "closedAt": at}, dbx.HashExp{"id": id}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	// note: the reviewedAt set by hand went around the store's counters
	if err := st.Metrics().RecountMetrics(f.A.Org); err != nil {
		t.Fatal(err)
	}

	o := decode[enrichment.Overview](t, requestAuth(h, http.MethodGet, overviewURL, fixture.ReviewerToken(t, app, string(f.A.Org)), "").Body.Bytes())
	if len(o.Clients) != 1 || len(o.Clients[0].Weekly) != enrichment.TrendWeeks || len(o.Clients[0].Calibration) != 10 {
		t.Fatalf("overview %+v", o)
	}
	c := o.Clients[0]
	if !reflect.DeepEqual(c.Weekly, o.Weekly) || !reflect.DeepEqual(c.Calibration, o.Calibration) {
		t.Errorf("one client, but its trends differ from all clients':\n%+v\n%+v", c, o)
	}
	inWeeks := 0
	for i, w := range c.Weekly {
		start, err := time.Parse(time.DateOnly, w.Week)
		if err != nil || start.Weekday() != time.Monday {
			t.Fatalf("week %q is not a Monday", w.Week)
		}
		if i == len(c.Weekly)-1 && now.Sub(start) >= 7*24*time.Hour {
			t.Errorf("the last week %s does not hold now %s", w.Week, now)
		}
		// acceptance-rate's window is strict on both sides: since one millisecond before the Monday
		url := fmt.Sprintf("/api/enrichment/acceptance-rate?since=%d&until=%d", start.UnixMilli()-1, start.AddDate(0, 0, 7).UnixMilli())
		m := decode[enrichment.AcceptanceMetrics](t, request(h, http.MethodGet, url, f.A.Keys["both"], "").Body.Bytes())
		if w.Reviewed != m.Reviewed || w.Accepted != m.Accepted || w.AcceptanceRate != m.AcceptanceRate {
			t.Errorf("week %s: %+v, acceptance-rate says %+v", w.Week, w, m)
		}
		inWeeks += w.Reviewed
	}
	want := 0
	for _, d := range decisions {
		if !now.Add(-time.Duration(d.daysAgo)*24*time.Hour - time.Minute).Before(enrichment.TrendsSince(now)) {
			want++
		}
	}
	if inWeeks != want || want < 10 {
		t.Errorf("%d decisions in the weeks, want %d", inWeeks, want)
	}
	// the buckets add up to the bands, and each decision is in its bucket
	for _, b := range c.Metrics.ByConfidenceBand {
		var reviewed, accepted int
		for _, k := range c.Calibration {
			if band := enrichment.ConfidenceBand(k.From); band == b.Band {
				reviewed += k.Reviewed
				accepted += k.Accepted
			}
		}
		if reviewed != b.Reviewed || accepted != b.Accepted {
			t.Errorf("band %s: %d of %d in the buckets, %d of %d in the band", b.Band, accepted, reviewed, b.Accepted, b.Reviewed)
		}
	}
	buckets := map[int][2]int{0: {1, 1}, 4: {1, 0}, 5: {1, 0}, 6: {1, 1}, 7: {1, 1}, 8: {1, 0}, 9: {4, 3}}
	for i, k := range c.Calibration {
		if got := [2]int{k.Reviewed, k.Accepted}; got != buckets[i] {
			t.Errorf("bucket %d-%d: reviewed, accepted %v, want %v", k.From, k.To, got, buckets[i])
		}
	}
}

// TestReviewOverviewTrendsPlan checks that the weeks are read from the day
// counters by their key, one range per client, and the confidence buckets
// from the covering index of decided revisions, not the revision records.
func TestReviewOverviewTrendsPlan(t *testing.T) {
	f, app, h := served(t)
	name := "Better"
	for _, kind := range []string{"both", "submit"} {
		if _, err := store.New(app).Proposals().Submit(f.A.Org, f.A.Clients[kind], []enrichment.Proposal{
			{SKU: "SKU-1", Fields: enrichment.Fields{Name: &name}}}, store.SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var weeksSQL, bucketsSQL []string
	db := app.ConcurrentDB().(*dbx.DB)
	db.QueryLogFunc = func(_ context.Context, _ time.Duration, q string, _ *sql.Rows, _ error) {
		switch {
		case strings.Contains(q, "[[start]] >=") || strings.Contains(q, "`start` >="):
			weeksSQL = append(weeksSQL, q)
		case strings.Contains(q, "/ 10 AS"):
			bucketsSQL = append(bucketsSQL, q)
		}
	}
	if res := requestAuth(h, http.MethodGet, overviewURL, fixture.ReviewerToken(t, app, string(f.A.Org)), ""); res.Code != 200 {
		t.Fatalf("overview: %d %s", res.Code, res.Body)
	}
	db.QueryLogFunc = nil
	if len(weeksSQL) != 1 || len(bucketsSQL) != 1 {
		t.Fatalf("captured weeks %q and buckets %q, want one of each", weeksSQL, bucketsSQL)
	}
	plan := func(q string) []string {
		var rows []struct {
			Detail string `db:"detail"`
		}
		if err := app.DB().NewQuery("EXPLAIN QUERY PLAN " + q).All(&rows); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Detail)
		}
		return out
	}
	for _, p := range plan(weeksSQL[0]) {
		if strings.Contains(p, "metric_counts") && !strings.Contains(p, "PRIMARY KEY (organization=? AND client=? AND span=? AND start>?)") {
			t.Errorf("day counters not read by a range of their key: %q in\n%s", p, weeksSQL[0])
		}
	}
	for _, p := range plan(bucketsSQL[0]) {
		if strings.Contains(p, "revisions") && !strings.Contains(p, "USING COVERING INDEX idx_revisions_decided_trends") {
			t.Errorf("revisions not read from the trends index: %q in\n%s", p, bucketsSQL[0])
		}
	}
}

// reviewerCase is a request to a reviewers' route: with a token (a
// reviewer's or a superuser's), an API key, or neither; body is sent as JSON.
type reviewerCase struct {
	name, method, url, token, key, body string
	status                              int
	want, absent                        []string // in the body
}

// checkReviewerCases sends each case (GET unless it says) and checks its
// status and what its body holds and does not.
func checkReviewerCases(t *testing.T, h http.Handler, cases []reviewerCase) {
	t.Helper()
	for _, c := range cases {
		method := cmp.Or(c.method, http.MethodGet)
		res := request(h, method, c.url, c.key, c.body)
		if c.token != "" {
			res = requestAuth(h, method, c.url, c.token, c.body)
		}
		if res.Code != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, res.Code, c.status, res.Body)
			continue
		}
		for _, w := range c.want {
			if !contains(res.Body.String(), w) {
				t.Errorf("%s: no %s in %s", c.name, w, res.Body)
			}
		}
		for _, a := range c.absent {
			if contains(res.Body.String(), a) {
				t.Errorf("%s: %s in %s", c.name, a, res.Body)
			}
		}
	}
}
