package browser

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestFiftyRevisionsInARow: a reviewer walks through 50 revisions with the
// keyboard alone, as fast as the page lets them (signing in, moving back
// and forth, accepting, rejecting with a reason picked by keyboard), with
// the sign-in rate limit on: every decision lands with its reason, the
// focus never drops to the top of the page once it is in the queue, and
// none of the page's requests (sign-in, lists, counts, decisions) is
// answered 429.
func TestFiftyRevisionsInARow(t *testing.T) {
	s := newService(t)
	limits := s.app.Settings().RateLimits
	if !limits.Enabled || len(limits.Rules) == 0 {
		t.Fatalf("the sign-in rate limit is off: %+v", limits)
	}
	a := s.f.A
	var items []proposal
	for i := range 50 {
		items = append(items, proposal{fmt.Sprintf("BULK-%04d", 100+i), 99 - i,
			enrichment.Fields{Name: ptr(fmt.Sprintf("Paced %d", i))}})
	}
	ids := s.submit(a, "both", items...)
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	do(t, ctx, chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.CSS("#email")))
	waitFor(t, ctx, "focus in the email field", `document.activeElement?.id === 'email'`)
	press(t, ctx, "ann@alpha.example"+kb.Tab+reviewerPassword+kb.Enter)
	waitQueue(t, ctx)
	// signed in, the keyboard is in the queue, whose revisions are one Tab
	// stop: a few Tabs reach the decision
	waitRevision(t, ctx, ids[0])
	if got := eval[string](t, ctx, `document.activeElement?.dataset.id ?? document.activeElement?.tagName`); got != ids[0] {
		t.Fatalf("after signing in the focus is on %q, want the first revision %s", got, ids[0])
	}
	tabs := 0
	for ; tabs < 30 && eval[string](t, ctx, `document.activeElement?.id`) != "accept-all"; tabs++ {
		press(t, ctx, kb.Tab)
	}
	if tabs > 10 {
		t.Errorf("%d Tabs from the queue to Accept", tabs)
	}
	t.Logf("%d Tabs from the queue to Accept", tabs)
	type outcome struct{ status, reason string }
	want := map[string]outcome{}
	for i, id := range ids { // the queue shows the highest confidence first: the order submitted
		waitRevision(t, ctx, id)
		if i%7 == 3 && i+1 < len(ids) { // a look at the next one and back
			press(t, ctx, "j")
			waitRevision(t, ctx, ids[i+1])
			press(t, ctx, "k")
			waitRevision(t, ctx, id)
		}
		switch {
		case i%3 == 2: // reject with a reason: e, down twice (low quality), Escape, r
			press(t, ctx, "e")
			waitFor(t, ctx, "the reason picker", `document.activeElement?.id === 'reason'`)
			press(t, ctx, kb.ArrowDown+kb.ArrowDown+kb.Escape)
			press(t, ctx, "r")
			want[id] = outcome{"rejected", "low_quality"}
		default:
			press(t, ctx, "a")
			want[id] = outcome{"accepted", ""}
		}
		waitGone(t, ctx, id)
		if tag := eval[string](t, ctx, `document.activeElement?.tagName`); tag == "BODY" {
			t.Fatalf("after deciding revision %d the focus dropped to the page", i)
		}
	}
	waitFor(t, ctx, "an empty queue", `/Nothing pending/.test(document.querySelector('#queue-summary').textContent)`)

	for id, w := range want {
		s.waitStatus(id, w.status)
		if got := s.record("revisions", id).GetString("reason"); got != w.reason {
			t.Errorf("revision %s: reason %q, want %q", id, got, w.reason)
		}
	}
	if n := s.statuses.get(http.StatusTooManyRequests); n > 0 {
		t.Errorf("%d of the page's requests were answered 429", n)
	}
}
