package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
)

// TestSelectionAndFocus: revisions selected in the queue (Space, shift+j,
// shift-click) are accepted or rejected together after a confirmation
// whose Cancel has the focus; a group accept leaves the revision that a
// more confident proposal of another client beats. A decision made with
// a button keeps the focus on that button of the next revision, and its
// confirmation shows at the foot of the revision however far the list is
// scrolled.
func TestSelectionAndFocus(t *testing.T) {
	s := newService(t)
	a := s.f.A
	var items []proposal
	for i := range 40 {
		items = append(items, proposal{bulkSKU(i + 1), 99 - i, enrichment.Fields{Name: ptr("Selected " + bulkSKU(i+1))}})
	}
	ids := s.submit(a, "both", items...)
	rival := s.submit(a, "submit", proposal{bulkSKU(2), 10, enrichment.Fields{Name: ptr("A rival")}},
		proposal{bulkSKU(3), 99, enrichment.Fields{Name: ptr("A stronger rival")}})
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	if n := eval[int](t, ctx, `document.querySelectorAll('#queue-list [tabindex="0"]').length`); n != 1 {
		t.Errorf("%d Tab stops in the queue, want 1", n)
	}
	// Space, past the stronger rival, Space, shift+j: BULK-0001 to 0003
	press(t, ctx, " jj J")
	waitFor(t, ctx, "three selected", `document.querySelector('#selection-count').textContent === '3 selected'`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#selection-accept")))
	waitFor(t, ctx, "the confirmation", `document.querySelector('#confirm').open`)
	if got := eval[string](t, ctx, `document.activeElement.id`); got != "confirm-cancel" {
		t.Errorf("the dialog focuses %q, want Cancel", got)
	}
	if got := text(t, ctx, "#confirm-text"); !strings.HasPrefix(got, "Accept 2 selected revisions?") || !strings.Contains(got, "1 revision compete") {
		t.Errorf("confirmation %q", got)
	}
	if got := text(t, ctx, "#confirm-details li"); !strings.HasPrefix(got, "#"+ids[2]+" "+bulkSKU(3)+": name goes to #"+rival[1]) {
		t.Errorf("left %q", got)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#confirm-ok")))
	s.waitStatus(ids[0], "accepted")
	s.waitStatus(ids[1], "accepted")
	if got, _ := s.status(ids[2]); got != "pending" {
		t.Errorf("the beaten revision is %s", got)
	}

	// shift-click selects a range; reject them with a reason
	waitFor(t, ctx, "the selection cleared", `document.querySelector('#selection').hidden`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#queue-list .sel[data-id="`+ids[4]+`"]`)))
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('#queue-list .sel[data-id="`+ids[6]+`"]')
		.dispatchEvent(new MouseEvent('click', { bubbles: true, shiftKey: true }))`))
	waitFor(t, ctx, "three selected", `document.querySelector('#selection-count').textContent === '3 selected'`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#selection-reject")))
	waitFor(t, ctx, "the confirmation", `document.querySelector('#confirm').open`)
	pick(t, ctx, "#confirm-reason", "off_brand")
	screenshot(t, ctx, "selection-reject")
	do(t, ctx, chromedp.Click(chromedp.CSS("#confirm-ok")))
	for _, id := range ids[4:7] {
		s.waitStatus(id, "rejected")
		if got := s.record("revisions", id).GetString("reason"); got != "off_brand" {
			t.Errorf("revision %s: reason %q", id, got)
		}
	}

	// a button decision far down the list: the focus stays on that button,
	// the confirmation is in view
	last := ids[39]
	do(t, ctx, chromedp.ScrollIntoView(chromedp.CSS(`#queue-list .item[data-id="`+last+`"]`)))
	openRevision(t, ctx, ids[38])
	do(t, ctx, chromedp.Click(chromedp.CSS("#reject")))
	waitRevision(t, ctx, last)
	if got := eval[string](t, ctx, `document.activeElement.id`); got != "reject" {
		t.Errorf("after a button decision the focus is on %q", got)
	}
	waitFor(t, ctx, "the confirmation", `/rejected/.test(document.querySelector('#notice').textContent)`)
	if !eval[bool](t, ctx, `(() => { const r = document.querySelector('#notice').getBoundingClientRect();
		return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; })()`) {
		t.Error("the confirmation is out of view")
	}
	if eval[float64](t, ctx, `document.querySelector('.queue').scrollTop`) < 100 {
		t.Error("the list was not scrolled, the test proves nothing")
	}
	screenshot(t, ctx, "decided-far-down")
}

// bulkSKU is the SKU of the fixture's n-th bulk product.
func bulkSKU(n int) string {
	return fmt.Sprintf("BULK-%04d", n)
}
