package browser

import (
	"fmt"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
)

const (
	groupDecisions = "POST /api/enrichment/review/decisions"
	recordUpdates  = "PATCH /api/collections/revisions/records/"
)

// TestGroupIsOneRequest: the bulk accept of many revisions goes to the
// server as one request, not one per revision, and so does the choice
// among competing proposals, whose fully accepted revision keeps the
// reviewer's comment; a single decision is still one records API update.
func TestGroupIsOneRequest(t *testing.T) {
	s := newService(t)
	a := s.f.A
	var items []proposal
	for i := range 30 {
		items = append(items, proposal{bulkSKU(i + 1), 80 + i%20, enrichment.Fields{Name: ptr(fmt.Sprintf("Bulk %d", i+1))}})
	}
	ids := s.submit(a, "both", items...)
	pro := s.submit(a, "both", proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}})[0]
	classic := s.submit(a, "submit", proposal{"SKU-1", 70, enrichment.Fields{Name: ptr("Runner Classic")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#bulk summary")))
	if got := text(t, ctx, "#bulk-start"); got != "Accept every pending revision with confidence 80 or more…" {
		t.Errorf("bulk button %q, from the server's vocabulary", got)
	}
	pick(t, ctx, "#bulk-client", store.FormatID(a.Clients["both"]))
	do(t, ctx, chromedp.Click(chromedp.CSS("#bulk-start")))
	waitFor(t, ctx, "the confirmation", `document.querySelector('#confirm').open`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#confirm-ok")))
	waitFor(t, ctx, "the bulk result", `/^Accepted \d+ of/.test(document.querySelector('#bulk-status').textContent)`)
	if got := text(t, ctx, "#bulk-status"); got != "Accepted 31 of 31." {
		t.Errorf("bulk status %q", got)
	}
	for _, id := range append(ids, pro) {
		if got, _ := s.status(id); got != "accepted" {
			t.Errorf("revision %s is %s after the bulk accept", id, got)
		}
	}
	if n, m := s.statuses.requests(groupDecisions), s.statuses.requests(recordUpdates); n != 1 || m != 0 {
		t.Errorf("the bulk accept of 31 sent %d group decisions and %d revision updates, want 1 and 0", n, m)
	}

	// the choice among two proposals (the other one decided by hand
	// first, to bring them back to compete): one request, the comment kept
	// by the accepted revision as by the rejected one
	runner := s.submit(a, "read", proposal{"SKU-1", 95, enrichment.Fields{Name: ptr("Runner Daily")}})[0]
	do(t, ctx, chromedp.Reload())
	openRevision(t, ctx, runner)
	waitFor(t, ctx, "the proposals together", `document.querySelectorAll('.choice .option').length === 3`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#comment"), "Thanks, well written."))
	do(t, ctx, chromedp.Click(chromedp.CSS("#apply-choices")))
	s.waitStatus(runner, "accepted")
	s.waitStatus(classic, "rejected")
	for _, id := range []string{runner, classic} {
		if got := s.record("revisions", id).GetString("comment"); got != "Thanks, well written." {
			t.Errorf("revision %s: comment %q", id, got)
		}
	}
	if n, m := s.statuses.requests(groupDecisions), s.statuses.requests(recordUpdates); n != 2 || m != 0 {
		t.Errorf("after the choice: %d group decisions and %d revision updates, want 2 and 0", n, m)
	}

	// one revision alone: a records API update
	single := s.submit(a, "both", proposal{"SKU-NEW", 85, enrichment.Fields{Name: ptr("Newest edition")}})[0]
	do(t, ctx, chromedp.Reload())
	openRevision(t, ctx, single)
	do(t, ctx, chromedp.Click(chromedp.CSS("#accept-all")))
	s.waitStatus(single, "accepted")
	if n, m := s.statuses.requests(groupDecisions), s.statuses.requests(recordUpdates); n != 2 || m != 1 {
		t.Errorf("after one decision: %d group decisions and %d revision updates, want 2 and 1", n, m)
	}
}
