package browser

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
)

// decidedIDs asks GET /api/enrichment/review/decided as a reviewer, with a query.
func (s *service) decidedIDs(token string, query url.Values) []string {
	s.t.Helper()
	var page struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	s.call(http.MethodGet, "/api/enrichment/review/decided?"+query.Encode(), token, "", http.StatusOK, &page)
	ids := []string{}
	for _, it := range page.Items {
		ids = append(ids, it.ID)
	}
	return ids
}

// TestDecidedView: the decided view lists everyone's decisions, newest
// first, or the reviewer's own, as the history route answers them; each
// opens the decided revision.
func TestDecidedView(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"BULK-0001", 90, enrichment.Fields{Name: ptr("One")}},
		proposal{"BULK-0002", 80, enrichment.Fields{Name: ptr("Two")}},
		proposal{"BULK-0003", 70, enrichment.Fields{Name: ptr("Three")}})
	s.addReviewer(a.Org, "ann@alpha.example")
	s.addReviewer(a.Org, "bob@alpha.example")
	bob := s.token("bob@alpha.example")
	s.call(http.MethodPatch, "/api/collections/revisions/records/"+ids[1], bob, `{"status":"rejected","reason":"duplicate"}`, http.StatusOK, nil)

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	press(t, ctx, "a") // ann accepts the first
	s.waitStatus(ids[0], "accepted")

	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-decided")))
	rows := `[...document.querySelectorAll('#decided-list tbody tr')].map(r => r.dataset.id)`
	waitFor(t, ctx, "everyone's decisions", rows+`.length === 2`)
	ann := s.token("ann@alpha.example")
	want := s.decidedIDs(ann, url.Values{})
	if got := eval[[]string](t, ctx, rows); !slices.Equal(got, want) || !slices.Equal(got, []string{ids[0], ids[1]}) {
		t.Errorf("everyone's: %v; the route answers %v; want %v", got, want, []string{ids[0], ids[1]})
	}
	by := eval[[]string](t, ctx, `[...document.querySelectorAll('#decided-list tbody tr .by')].map(c => c.textContent)`)
	if !slices.Equal(by, []string{"ann@alpha.example", "bob@alpha.example"}) {
		t.Errorf("decided by %v", by)
	}
	screenshot(t, ctx, "decided")

	pick(t, ctx, "#d-whose", "me")
	waitFor(t, ctx, "my decisions", rows+`.length === 1`)
	if got, want := eval[[]string](t, ctx, rows), s.decidedIDs(ann, url.Values{"reviewer": {"me"}}); !slices.Equal(got, want) || got[0] != ids[0] {
		t.Errorf("mine: %v; the route answers %v", got, want)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`#decided-list tbody tr[data-id="`+ids[0]+`"] a`)))
	waitRevision(t, ctx, ids[0])
	if got := text(t, ctx, "#closed-note"); !strings.Contains(got, "accepted") {
		t.Errorf("the decided revision opened: %q", got)
	}
}

// TestDecidedFiltersInTheAddress: the decided view's filters are in the
// address, so a reload keeps them: the pickers show them again and the
// list is what they match.
func TestDecidedFiltersInTheAddress(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"BULK-0001", 90, enrichment.Fields{Name: ptr("One")}},
		proposal{"BULK-0002", 80, enrichment.Fields{Name: ptr("Two")}})
	s.addReviewer(a.Org, "ann@alpha.example")
	s.addReviewer(a.Org, "bob@alpha.example")
	s.call(http.MethodPatch, "/api/collections/revisions/records/"+ids[0], s.token("ann@alpha.example"), `{"status":"accepted"}`, http.StatusOK, nil)
	s.call(http.MethodPatch, "/api/collections/revisions/records/"+ids[1], s.token("bob@alpha.example"), `{"status":"rejected","reason":"duplicate"}`, http.StatusOK, nil)

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-decided")))
	rows := `[...document.querySelectorAll('#decided-list tbody tr')].map(r => r.dataset.id).join()`
	waitFor(t, ctx, "everyone's decisions", rows+` === `+js(ids[1]+","+ids[0]))
	pick(t, ctx, "#d-whose", "me")
	pick(t, ctx, "#d-by", "reviewer")
	waitFor(t, ctx, "my decisions", rows+` === `+js(ids[0]))
	waitFor(t, ctx, "the filters in the address", `(() => { const q = new URLSearchParams(location.hash.split('?')[1] ?? '');
		return location.hash.startsWith('#decided?') && q.get('reviewer') === 'me' && q.get('decidedBy') === 'reviewer'; })()`)

	do(t, ctx, chromedp.Reload())
	waitFor(t, ctx, "my decisions after a reload", `!document.querySelector('#decided-view').hidden && `+rows+` === `+js(ids[0]))
	if got := eval[[]string](t, ctx, `['#d-whose', '#d-by', '#d-client'].map(s => document.querySelector(s).value)`); !slices.Equal(got, []string{"me", "reviewer", ""}) {
		t.Errorf("pickers after a reload %q, want the address's filters", got)
	}
	// the queue and back by the tab: the filters stay
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-queue")))
	waitQueue(t, ctx)
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-decided")))
	waitFor(t, ctx, "my decisions again", `!document.querySelector('#decided-view').hidden && `+rows+` === `+js(ids[0])+` && location.hash.includes('reviewer=me')`)
}
