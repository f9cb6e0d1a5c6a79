package browser

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The walk's defects (a reviewer's walk through the page at 1440×900 and
// 390×844): each test here failed on the page as the walk found it.

// holdKey presses key and holds it: one key down, then repeats auto-repeated
// ones every gap, as a keyboard sends while the key is held, then the key up.
func holdKey(t *testing.T, ctx context.Context, key string, repeats int, gap time.Duration) {
	t.Helper()
	down := func(repeat bool) {
		if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: input.DispatchKeyEventTypeKeyDown, Key: key, Text: key, UnmodifiedText: key, AutoRepeat: &repeat,
		}); err != nil {
			t.Fatalf("key %s: %v", key, err)
		}
	}
	down(false)
	for range repeats {
		time.Sleep(gap)
		down(true)
	}
	if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: key}); err != nil {
		t.Fatalf("key up %s: %v", key, err)
	}
}

// names proposes a new name for each SKU, confidence falling in order.
func names(skus ...string) []proposal {
	var out []proposal
	for i, sku := range skus {
		out = append(out, proposal{sku, 90 - i, enrichment.Fields{Name: ptr("Renamed " + sku)}})
	}
	return out
}

// TestHeldKeyDecidesOnce (defect 1): holding a decides the revision shown
// once; the key's auto-repeats decide nothing more.
func TestHeldKeyDecidesOnce(t *testing.T) {
	s := newService(t)
	ids := s.submit(s.f.A, "both", names("BULK-0001", "BULK-0002", "BULK-0003")...)
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	holdKey(t, ctx, "a", 6, 120*time.Millisecond)
	s.waitStatus(ids[0], "accepted")
	waitRevision(t, ctx, ids[1])
	time.Sleep(500 * time.Millisecond)
	for _, id := range ids[1:] {
		if got, _ := s.status(id); got != "pending" {
			t.Errorf("revision %s is %s after one held key: a repeat decided it", id, got)
		}
	}
}

// TestUndoKeepsReasonAndComment (defect 2): undoing a rejection shows the
// revision again with the reason and comment given.
func TestUndoKeepsReasonAndComment(t *testing.T) {
	s := newService(t)
	ids := s.submit(s.f.A, "both", names("BULK-0001", "BULK-0002")...)
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTabHolding(t, 20000)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	pick(t, ctx, "#reason", "other")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#comment"), "Not this brand's style."))
	do(t, ctx, chromedp.Click(chromedp.CSS("#reject")))
	waitGone(t, ctx, ids[0])
	do(t, ctx, chromedp.Click(chromedp.CSS("#undo")))
	waitRevision(t, ctx, ids[0])
	if got := eval[string](t, ctx, `document.querySelector('#reason').value`); got != "other" {
		t.Errorf("reason after undo %q, want other", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('#comment').value`); got != "Not this brand's style." {
		t.Errorf("comment after undo %q", got)
	}
	if got, _ := s.status(ids[0]); got != "pending" {
		t.Errorf("revision %s is %s after undo", ids[0], got)
	}
}

// TestNextRevisionFromTheTop (defect 3): the next revision is shown from its
// top, not at the scroll position the previous one was left at.
func TestNextRevisionFromTheTop(t *testing.T) {
	s := newService(t)
	long := strings.Repeat("A line of a long description.\n", 200)
	ids := s.submit(s.f.A, "both",
		proposal{"BULK-0001", 90, enrichment.Fields{Description: ptr(long)}},
		proposal{"BULK-0002", 80, enrichment.Fields{Description: ptr("Another. " + long)}})
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	scrolled := eval[float64](t, ctx, `(() => { const b = document.querySelector('#revision-body'); b.scrollTop = 2000; return b.scrollTop; })()`)
	if scrolled < 1000 {
		t.Fatalf("the revision scrolls only %v px: too short for the test", scrolled)
	}
	press(t, ctx, "j")
	waitRevision(t, ctx, ids[1])
	if got := eval[float64](t, ctx, `document.querySelector('#revision-body').scrollTop`); got != 0 {
		t.Errorf("the next revision is shown scrolled by %v px", got)
	}
}

// TestPhoneBackReturnsToTheList (defect 4): on a phone, a revision opened
// from the list is a history entry: Back shows the list and stays on the page.
func TestPhoneBackReturnsToTheList(t *testing.T) {
	s := newService(t)
	ids := s.submit(s.f.A, "both", names("BULK-0001", "BULK-0002")...)
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	do(t, ctx, chromedp.EmulateViewport(phoneW, phoneH, chromedp.EmulateMobile, chromedp.EmulateTouch))
	signIn(t, ctx, s.url, "ann@alpha.example")
	openRevision(t, ctx, ids[1])
	waitFor(t, ctx, "the revision on the screen", `document.querySelector('#revision').checkVisibility()`)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`history.back()`))
	waitFor(t, ctx, "the list after Back", `location.origin === `+js(s.url)+` && !!document.querySelector('.queue') &&
		document.querySelector('.queue').checkVisibility() && !document.querySelector('#revision').checkVisibility()`)
	if got := eval[string](t, ctx, `location.hash`); got != "#queue" {
		t.Errorf("address after Back: %q", got)
	}
	// and again: the revision's own Back button does the same
	openRevision(t, ctx, ids[0])
	do(t, ctx, chromedp.Click(chromedp.CSS(".rev-head .back")))
	waitFor(t, ctx, "the list", `document.querySelector('.queue').checkVisibility() && location.hash === '#queue'`)
}

// TestFiltersInTheAddress (defect 5): the filters are in the address, and a
// reload keeps them.
func TestFiltersInTheAddress(t *testing.T) {
	s := newService(t)
	ids := s.submit(s.f.A, "both", names("BULK-0001", "BULK-0002", "SKU-1")...)
	low := s.submit(s.f.A, "both", proposal{"BULK-0003", 20, enrichment.Fields{Name: ptr("Low")}})[0]
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS(`#bands .band[data-band="80-100"]`)))
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#f-sku"), "BULK"))
	want := strings.Join([]string{ids[0], ids[1]}, ",")
	filtered := queueIdle + ` && [...document.querySelectorAll('#queue-list .item')].map(e => e.dataset.id).join() === ` + js(want)
	waitFor(t, ctx, "the filtered queue", filtered)
	if got := eval[string](t, ctx, `location.search`); !strings.Contains(got, "sku=BULK") || !strings.Contains(got, "band=80-100") {
		t.Errorf("address %q does not hold the filters", got)
	}
	do(t, ctx, chromedp.Reload())
	waitQueue(t, ctx)
	waitFor(t, ctx, "the same filtered queue after reload", filtered)
	if got := eval[string](t, ctx, `document.querySelector('#f-sku').value`); got != "BULK" {
		t.Errorf("SKU filter after reload %q", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('#bands .band[aria-pressed=true]').dataset.band`); got != "80-100" {
		t.Errorf("band after reload %q", got)
	}
	if slices.Contains(queueIDs(t, ctx), low) {
		t.Error("the low-confidence revision is listed after reload")
	}
}

// TestReasonNotDroppedOnAcceptAll (defect 6): Accept all with a reason
// chosen decides nothing and says why, rather than dropping the reason.
func TestReasonNotDroppedOnAcceptAll(t *testing.T) {
	s := newService(t)
	ids := s.submit(s.f.A, "both", names("BULK-0001", "BULK-0002")...)
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	pick(t, ctx, "#reason", "other")
	do(t, ctx, chromedp.Click(chromedp.CSS("#accept-all")))
	waitFor(t, ctx, "the page to say why", `/A reason is for rejecting or accepting in part/.test(document.querySelector('#decision-status').textContent)`)
	time.Sleep(300 * time.Millisecond)
	if got, _ := s.status(ids[0]); got != "pending" {
		t.Errorf("revision %s is %s: the reason was dropped", ids[0], got)
	}
	if got := eval[string](t, ctx, `document.activeElement.id`); got != "reason" {
		t.Errorf("focus on %q, want the reason", got)
	}
	// nor with every field ticked
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('#decision-status').textContent = ''`),
		chromedp.Click(chromedp.CSS("#accept-selected")))
	waitFor(t, ctx, "the page to say why", `/A reason is for rejecting or accepting in part/.test(document.querySelector('#decision-status').textContent)`)
	time.Sleep(300 * time.Millisecond)
	if got, _ := s.status(ids[0]); got != "pending" {
		t.Errorf("revision %s is %s: the reason was dropped on Accept ticked with every field ticked", ids[0], got)
	}
	// cleared, it accepts
	pick(t, ctx, "#reason", "")
	press(t, ctx, kb.Escape)
	do(t, ctx, chromedp.Click(chromedp.CSS("#accept-all")))
	s.waitStatus(ids[0], "accepted")
}

// TestNumbersDiffWhole (defect 7): a number is compared whole: 0.9 → 1.1 kg
// strikes 0.9 and marks 1.1, not digits here and there.
func TestNumbersDiffWhole(t *testing.T) {
	s := newService(t)
	a := s.f.A
	s.addOption(a.Org, templateID(t, s, a.Org, "Shoes"), "Weight", "NUMBER", "kg")
	weight := func(w string) enrichment.Fields {
		return enrichment.Fields{Attributes: &[]enrichment.StoredAttribute{{Attribute: "Weight", Detail: w}}}
	}
	first := s.submit(a, "both", proposal{"SKU-M-RED", 80, weight("0.9")})[0]
	s.decide(first, "accepted")
	id := s.submit(a, "both", proposal{"SKU-M-RED", 80, weight("1.1")})[0]
	s.addReviewer(a.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	cell := `document.querySelector('table.attrs tr[data-attribute="Weight"] .c-proposed')`
	got := eval[[]string](t, ctx, `[...`+cell+`.querySelectorAll('del, ins')].map(e => e.tagName + ':' + e.textContent.trim())`)
	if want := []string{"DEL:0.9", "INS:1.1"}; !slices.Equal(got, want) {
		t.Errorf("Weight diff %q, want %q (cell %q)", got, want, eval[string](t, ctx, cell+`.textContent`))
	}
}
