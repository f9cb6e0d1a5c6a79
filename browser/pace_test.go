package browser

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// TestFiftyRevisionsInARow: a reviewer works through 50 revisions as fast
// as the page lets them, accepting and rejecting by keyboard, with the
// sign-in rate limit on: every decision lands, and none of the page's
// requests (sign-in, lists, counts, decisions) is answered 429.
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
	signIn(t, ctx, s.url, "ann@alpha.example")
	want := map[string]string{}
	for i, id := range ids { // the queue shows the highest confidence first: the order submitted
		waitRevision(t, ctx, id)
		key, status := "a", "accepted"
		if i%3 == 2 {
			key, status = "r", "rejected"
		}
		press(t, ctx, key)
		waitGone(t, ctx, id)
		want[id] = status
	}
	waitFor(t, ctx, "an empty queue", `/Nothing pending/.test(document.querySelector('#queue-summary').textContent)`)

	if n := s.statuses.get(http.StatusTooManyRequests); n > 0 {
		t.Errorf("%d of the page's requests were answered 429", n)
	}
	for id, status := range want {
		if got, _ := s.status(id); got != status {
			t.Errorf("revision %s: %s, want %s", id, got, status)
		}
	}
}
