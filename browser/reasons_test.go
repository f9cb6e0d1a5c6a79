package browser

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
)

// TestReasonsAndComments: a rejection and a partial approval carry the
// reason and comment picked beside the decision; a full approval carries
// the comment (with a reason chosen, it decides nothing: the server refuses
// a reason there, see TestReasonNotDroppedOnAcceptAll).
func TestReasonsAndComments(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"BULK-0001", 90, enrichment.Fields{Name: ptr("One")}},
		proposal{"BULK-0002", 80, enrichment.Fields{Name: ptr("Two"), Description: ptr("Second.")}},
		proposal{"BULK-0003", 70, enrichment.Fields{Name: ptr("Three")}})
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	steps := []struct {
		id, reason, comment string
		act                 []chromedp.Action[chromedp.Void]
		want                [4]string // status, approved fields, reason, comment
	}{
		{ids[0], "inaccurate", "Wrong name.", []chromedp.Action[chromedp.Void]{chromedp.Click(chromedp.CSS("#reject"))},
			[4]string{"rejected", "", "inaccurate", "Wrong name."}},
		{ids[1], "incomplete", "", []chromedp.Action[chromedp.Void]{chromedp.Click(chromedp.CSS("#pick-description")), chromedp.Click(chromedp.CSS("#accept-selected"))},
			[4]string{"accepted", "name", "incomplete", ""}},
		{ids[2], "", "Thanks.", []chromedp.Action[chromedp.Void]{chromedp.Click(chromedp.CSS("#accept-all"))},
			[4]string{"accepted", "name", "", "Thanks."}},
	}
	for _, st := range steps {
		waitRevision(t, ctx, st.id)
		pick(t, ctx, "#reason", st.reason)
		if st.comment != "" {
			do(t, ctx, chromedp.SendKeys(chromedp.CSS("#comment"), st.comment))
		}
		if st.id == ids[0] {
			screenshot(t, ctx, "reason")
		}
		do(t, ctx, st.act...)
		waitGone(t, ctx, st.id)
		fields := s.waitStatus(st.id, st.want[0])
		r := s.record("revisions", st.id)
		got := [4]string{r.GetString("status"), joined(fields), r.GetString("reason"), r.GetString("comment")}
		if got != st.want {
			t.Errorf("revision %s: %v, want %v", st.id, got, st.want)
		}
	}
}

// TestUndo: a decision is held for five seconds with an Undo; undoing it
// sends nothing and brings the revision back; leaving the page sends what
// is held at once.
func TestUndo(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"BULK-0001", 90, enrichment.Fields{Name: ptr("One")}},
		proposal{"BULK-0002", 80, enrichment.Fields{Name: ptr("Two")}})
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTabHolding(t, -1) // the page's own delay
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	press(t, ctx, "a")
	waitGone(t, ctx, ids[0])
	waitRevision(t, ctx, ids[1]) // the next one at once
	held := eval[string](t, ctx, `document.querySelector('#notice .held').textContent`)
	if !regexp.MustCompile(`^Held: Revision #` + ids[0] + ` \(BULK-0001\) accepted: name\. Sending in [45] s\. Undo u$`).MatchString(held) {
		t.Errorf("notice %q", held)
	}
	if got, _ := s.status(ids[0]); got != "pending" {
		t.Fatalf("revision %s is %s while held", ids[0], got)
	}
	screenshot(t, ctx, "undo")
	do(t, ctx, chromedp.Click(chromedp.CSS("#undo")))
	waitRevision(t, ctx, ids[0])
	waitFor(t, ctx, "the revision back in the queue", `document.querySelector('#queue-list .item[aria-current=true]')?.dataset.id === `+js(ids[0]))
	if got := text(t, ctx, "#notice"); !regexp.MustCompile(`^Undone: .*Nothing was sent\.$`).MatchString(got) {
		t.Errorf("notice after undo %q", got)
	}

	// u undoes too; then a decision is sent when the page is left
	press(t, ctx, "r")
	waitGone(t, ctx, ids[0])
	press(t, ctx, "u")
	waitRevision(t, ctx, ids[0])
	press(t, ctx, "r")
	waitGone(t, ctx, ids[0])
	do(t, ctx, chromedp.Navigate("about:blank"))
	s.waitStatus(ids[0], "rejected")
	if got, _ := s.status(ids[1]); got != "pending" {
		t.Errorf("revision %s: %s", ids[1], got)
	}
}

// TestLeavingSendsAHeldGroup: leaving the page while a bulk decision is
// held sends all of it. Hiding the page (which comes first) starts sending
// the group, which checks the proposals and then sends one decision after
// another: the page must not be gone with the group half sent, or unsent.
func TestLeavingSendsAHeldGroup(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"BULK-0001", 90, enrichment.Fields{Name: ptr("One")}},
		proposal{"BULK-0002", 85, enrichment.Fields{Name: ptr("Two")}},
		proposal{"BULK-0003", 95, enrichment.Fields{Name: ptr("Three")}})
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTabHolding(t, -1) // the page's own delay
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#bulk summary")))
	pick(t, ctx, "#bulk-client", store.FormatID(a.Clients["both"]))
	do(t, ctx, chromedp.Click(chromedp.CSS("#bulk-start")))
	waitFor(t, ctx, "the confirmation", `document.querySelector('#confirm').open`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#confirm-ok")))
	waitFor(t, ctx, "the group held", `document.querySelector('#notice .held') !== null`)
	for _, id := range ids {
		if got, _ := s.status(id); got != "pending" {
			t.Fatalf("revision %s is %s while held", id, got)
		}
	}
	// the tab is hidden (switching apps on a phone), then the page is left
	// before the group, sent one decision after another, is through
	eval[bool](t, ctx, `Object.defineProperty(document, 'visibilityState', {value: 'hidden'}),
		document.dispatchEvent(new Event('visibilitychange'))`)
	do(t, ctx, chromedp.Navigate("about:blank"))
	for _, id := range ids {
		s.waitStatus(id, "accepted")
	}
}

// joined lists fields in order, comma-separated.
func joined(fields []string) string {
	slices.Sort(fields)
	return strings.Join(fields, ",")
}
