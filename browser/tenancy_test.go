package browser

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
	"github.com/pocketbase/dbx"
)

// TestOtherOrganization: a reviewer of B sees B's queue, clients and
// numbers only; A's revisions are not found even by their address.
func TestOtherOrganization(t *testing.T) {
	s := newService(t)
	a, b := s.f.A, s.f.B
	ofA := s.submit(a, "both",
		proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}},
		proposal{"SKU-M-RED", 60, enrichment.Fields{Name: ptr("Trail Crimson")}},
		proposal{"BULK-0001", 85, enrichment.Fields{Name: ptr("Bulk one")}})
	s.decide(ofA[2], "accepted")
	ofB := s.submit(b, "both", proposal{"B-ONLY", 50, enrichment.Fields{Description: ptr("Only in B")}})
	s.addReviewer(b.Org, "bob@beta.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "bob@beta.example")
	if got := queueIDs(t, ctx); !slices.Equal(got, ofB) {
		t.Errorf("B's queue %v, want %v", got, ofB)
	}
	if got := bandCounts(t, ctx); got["all"] != "1" || got["50-79"] != "1" || got["80-100"] != "0" {
		t.Errorf("B's band counts %v", got)
	}
	if got := text(t, ctx, "#who-name"); got != "bob@beta.example · Beta Tools" {
		t.Errorf("signed in as %q", got)
	}
	clients := eval[[]string](t, ctx, `[...document.querySelectorAll('#f-client option')].map(o => o.value).filter(Boolean)`)
	for _, c := range clients {
		for kind, id := range a.Clients {
			if c == store.FormatID(id) {
				t.Errorf("A's client %s (%s) offered to B's reviewer", c, kind)
			}
		}
	}
	if len(clients) != len(b.Clients) {
		t.Errorf("B's reviewer is offered clients %v, B has %v", clients, b.Clients)
	}

	// A's revision by its address: not found, and not decidable
	openLink(t, ctx, s.url, ofA[0])
	waitFor(t, ctx, "not found", `/Revision `+ofA[0]+` was not found/.test(document.querySelector('#revision').textContent)`)
	press(t, ctx, "a")
	if n := eval[int](t, ctx, `document.querySelectorAll('#decide-actions button').length`); n != 0 {
		t.Error("decision buttons for another organization's revision")
	}

	// the overview counts B's clients only
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-overview")))
	waitFor(t, ctx, "the overview", `document.querySelector('#client-chart')`)
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll('#client-chart tbody tr')].map(r => r.dataset.client)`)
	if want := []string{store.FormatID(b.Clients["both"])}; !slices.Equal(rows, want) {
		t.Errorf("overview clients %v, want %v", rows, want)
	}

	if status, _ := s.status(ofA[0]); status != "pending" {
		t.Errorf("A's revision is %s", status)
	}
	if got := s.product(a, "SKU-1").GetString("name"); got != "Runner" {
		t.Errorf("A's product renamed to %q", got)
	}
}

// TestOverview: the charts show, per API client, per week, per band and per
// reason, the numbers that GET /api/enrichment/acceptance-rate gives that
// client (for each week, in that week's window), and the decisions by
// confidence.
func TestOverview(t *testing.T) {
	s := newService(t)
	a := s.f.A
	name := func(n string) enrichment.Fields { return enrichment.Fields{Name: ptr(n)} }
	ids := s.submit(a, "both",
		proposal{"BULK-0001", 95, name("1")}, proposal{"BULK-0002", 90, name("2")}, proposal{"BULK-0003", 85, name("3")},
		proposal{"BULK-0004", 60, name("4")}, proposal{"BULK-0005", 55, name("5")},
		proposal{"BULK-0006", 10, name("6")}, proposal{"BULK-0007", -1, name("7")}, proposal{"BULK-0008", -1, name("8")},
		proposal{"BULK-0009", 70, name("9")})
	for i, status := range []string{"accepted", "accepted", "rejected", "accepted", "rejected", "rejected", "accepted", "rejected"} {
		s.decide(ids[i], status)
	}
	s.submit(a, "submit", proposal{"BULK-0010", 99, name("10")}) // another client's: counted apart
	// two decisions a few weeks back
	for i, days := range map[int]int{0: 8, 4: 30} {
		at := store.FormatTime(time.Now().Add(-time.Duration(days) * 24 * time.Hour))
		if _, err := s.app.DB().Update("revisions", dbx.Params{"reviewedAt": at, "closedAt": at}, dbx.HashExp{"id": ids[i]}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	// note: the reviewedAt set by hand went around the store's counters
	if err := store.New(s.app).Metrics().RecountMetrics(a.Org); err != nil {
		t.Fatal(err)
	}
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-overview")))
	client := store.FormatID(a.Clients["both"])
	row := `#client-chart tr[data-client="` + client + `"]`
	waitFor(t, ctx, "the chart", `document.querySelector(`+js(row)+`)`)
	screenshot(t, ctx, "overview")

	m := s.metrics(a.Keys["both"])
	got := eval[map[string]string](t, ctx, `({...document.querySelector(`+js(row)+`).dataset})`)
	want := map[string]string{"client": client, "rate": num(m.AcceptanceRate), "accepted": strconv.Itoa(m.Accepted),
		"reviewed": strconv.Itoa(m.Reviewed), "pending": strconv.Itoa(m.Pending)}
	if !maps.Equal(got, want) {
		t.Errorf("client row %v, want (from the API) %v", got, want)
	}
	if shown := text(t, ctx, row+" .rate"); shown != percent(m.AcceptanceRate) {
		t.Errorf("shown rate %q, want %q", shown, percent(m.AcceptanceRate))
	}

	pick(t, ctx, "#band-client", client)
	bands := eval[[]map[string]string](t, ctx, `[...document.querySelectorAll('#band-chart tbody tr')].map(r => ({...r.dataset}))`)
	if len(bands) != len(m.ByConfidenceBand) {
		t.Fatalf("band rows %v, want %v", bands, m.ByConfidenceBand)
	}
	for i, b := range m.ByConfidenceBand {
		want := map[string]string{"band": b.Band, "rate": num(b.AcceptanceRate), "accepted": strconv.Itoa(b.Accepted), "reviewed": strconv.Itoa(b.Reviewed)}
		if !maps.Equal(bands[i], want) {
			t.Errorf("band row %d: %v, want (from the API) %v", i, bands[i], want)
		}
	}
	if m.Reviewed != 8 || m.Accepted != 4 || m.Pending != 1 {
		t.Errorf("the API's metrics are not what this test set up: %+v", m)
	}

	// per week: each week's figures are the API's in that week's window
	weeks := eval[[]map[string]string](t, ctx, `[...document.querySelectorAll('#weekly-table tbody tr')].map(r =>
		({ week: r.dataset.week, ...r.querySelector('td[data-series="`+client+`"]').dataset }))`)
	if len(weeks) != 12 {
		t.Fatalf("%d weeks, want 12", len(weeks))
	}
	inWeeks := 0
	for _, w := range weeks {
		start, err := time.Parse(time.DateOnly, w["week"])
		if err != nil {
			t.Fatal(err)
		}
		wm := s.metricsIn(a.Keys["both"], fmt.Sprintf("?since=%d&until=%d", start.UnixMilli()-1, start.AddDate(0, 0, 7).UnixMilli()))
		if w["reviewed"] != strconv.Itoa(wm.Reviewed) || w["accepted"] != strconv.Itoa(wm.Accepted) {
			t.Errorf("week %s: %v, the API says %d of %d", w["week"], w, wm.Accepted, wm.Reviewed)
		}
		n, _ := strconv.Atoi(w["reviewed"])
		inWeeks += n
	}
	if inWeeks != m.Reviewed {
		t.Errorf("%d decisions in the weeks, %d in all", inWeeks, m.Reviewed)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#weekly-chart [data-series="`+client+`"] circle').length`); n < 3 {
		t.Errorf("%d points of the client's line, want one per week with decisions (3)", n)
	}
	// by confidence: ten buckets, the decisions in theirs
	buckets := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('#calibration-table tbody tr')]
		.map(r => [r.dataset.from, r.dataset.accepted + ' of ' + r.dataset.reviewed]))`)
	wantBuckets := map[string]string{"0": "0 of 0", "10": "0 of 1", "20": "0 of 0", "30": "0 of 0", "40": "0 of 0",
		"50": "0 of 1", "60": "1 of 1", "70": "0 of 0", "80": "0 of 1", "90": "2 of 2"}
	if !maps.Equal(buckets, wantBuckets) {
		t.Errorf("buckets %v, want %v", buckets, wantBuckets)
	}
	// the reasons given
	reasons := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('#reasons-chart tbody tr')].map(r => [r.dataset.reason, r.dataset.count]))`)
	for _, r := range m.ByReason {
		if reasons[r.Reason] != strconv.Itoa(r.Count) {
			t.Errorf("reason %s: %s, the API says %d", r.Reason, reasons[r.Reason], r.Count)
		}
	}
	if reasons["other"] != "4" {
		t.Errorf("reasons %v, want the four rejections' \"other\"", reasons)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('#by-confidence').scrollIntoView()`))
	screenshot(t, ctx, "overview-confidence")
}

// num formats a rate as JavaScript's String(number) does.
func num(rate float64) string { return strconv.FormatFloat(rate, 'f', -1, 64) }

// percent formats a rate as the overview shows it.
func percent(rate float64) string { return fmt.Sprintf("%.2f %%", rate*100) }

// TestSuperuserAndWrongPassword: a wrong password is refused on the page; a
// superuser signs in on the same form and sees every organization's queue.
func TestSuperuserAndWrongPassword(t *testing.T) {
	s := newService(t)
	ofA := s.submit(s.f.A, "both", proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}})
	ofB := s.submit(s.f.B, "both", proposal{"B-ONLY", 50, enrichment.Fields{Name: ptr("Beta only, renamed")}})
	s.addReviewer(s.f.A.Org, "ann@alpha.example")

	ctx := newTab(t)
	do(t, ctx,
		chromedp.Navigate(s.url+"/"),
		chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), "ann@alpha.example"),
		chromedp.SendKeys(chromedp.CSS("#password"), "not-the-password"),
		chromedp.Click(chromedp.CSS("#signin-submit")))
	waitFor(t, ctx, "the refusal", `document.querySelector('#signin-error').textContent !== ''`)
	if got := text(t, ctx, "#signin-error"); got != "Wrong email or password." {
		t.Errorf("refusal %q", got)
	}

	signInWith(t, ctx, s.url, fixture.SuperuserEmail, "superuser-password")
	got := queueIDs(t, ctx)
	slices.Sort(got)
	want := append(slices.Clone(ofA), ofB...)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("superuser's queue %v, want both organizations' %v", got, want)
	}
	if who := text(t, ctx, "#who-name"); who != fixture.SuperuserEmail+" · superuser, every organization" {
		t.Errorf("signed in as %q", who)
	}
	// signing out forgets the session
	do(t, ctx, chromedp.Click(chromedp.CSS("#sign-out")), chromedp.Reload())
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#signin-form")))
}
