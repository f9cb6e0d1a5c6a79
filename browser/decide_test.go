package browser

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestReject: rejecting a revision leaves its product exactly as it was.
func TestReject(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-NEW", 30, enrichment.Fields{Name: ptr("Newest, renamed"), Files: &[]string{"https://docs.example/new.pdf"}}},
		proposal{"BULK-0003", 90, enrichment.Fields{Description: ptr("Described at last.")}})
	s.addReviewer(a.Org, "ann@alpha.example")
	before := s.product(a, "SKU-NEW")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	openRevision(t, ctx, ids[0])
	do(t, ctx, chromedp.Click(chromedp.CSS("#reject")))
	waitGone(t, ctx, ids[0])
	s.waitStatus(ids[0], "rejected")

	if b, a := fieldsExcept(before), fieldsExcept(s.product(a, "SKU-NEW")); !maps.Equal(b, a) {
		t.Errorf("rejecting changed the product:\nbefore %v\nafter  %v", b, a)
	}
	rev := s.record("revisions", ids[0])
	ann, err := s.app.FindAuthRecordByEmail("reviewers", "ann@alpha.example")
	if err != nil {
		t.Fatal(err)
	}
	if rev.GetString("status") != "rejected" || rev.GetString("reviewer") != ann.Id || rev.GetString("reviewedAt") == "" {
		t.Errorf("revision after reject: status %q, reviewer %q, reviewedAt %q",
			rev.GetString("status"), rev.GetString("reviewer"), rev.GetString("reviewedAt"))
	}
	// the next one is shown, and the counts follow
	waitRevision(t, ctx, ids[1])
	waitFor(t, ctx, "the counts", `document.querySelector('#bands .band[data-band=all] .count').textContent === '1'`)
}

// TestBulkAccept: the bulk action accepts the pending revisions of one
// client with confidence 80 or more after a confirmation with their number,
// whose Cancel has the focus; a revision decided meanwhile fails alone and
// is reported; a proposal that competes with a more confident one of
// another client for the same field is left, and said so. Across every
// client, only the most confident proposal of a field is accepted.
func TestBulkAccept(t *testing.T) {
	s := newService(t)
	a := s.f.A
	name := func(n string) enrichment.Fields { return enrichment.Fields{Name: ptr(n)} }
	ids := s.submit(a, "both",
		proposal{"BULK-0001", 80, name("One")},
		proposal{"BULK-0002", 95, name("Two")},
		proposal{"BULK-0003", 100, name("Three")},
		proposal{"BULK-0004", 79, name("Four")},
		proposal{"BULK-0005", -1, name("Five")},
		proposal{"BULK-0006", 99, name("Six")},
	)
	theirs := s.submit(a, "submit", proposal{"BULK-0007", 90, name("Seven")}, proposal{"BULK-0002", 97, name("Two, theirs")})
	seven, rival := theirs[0], theirs[1]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#bulk summary")))
	pick(t, ctx, "#bulk-client", store.FormatID(a.Clients["both"]))
	do(t, ctx, chromedp.Click(chromedp.CSS("#bulk-start")))
	waitFor(t, ctx, "the confirmation", `document.querySelector('#confirm').open`)
	question := text(t, ctx, "#confirm-text")
	if !strings.HasPrefix(question, "Accept 3 pending revisions of “both” with confidence 80 or more?") ||
		!strings.HasSuffix(question, "1 competing revision left for you.") {
		t.Errorf("confirmation %q", question)
	}
	if got, want := text(t, ctx, "#confirm-details li"), "#"+ids[1]+" BULK-0002: name goes to #"+rival+" of submit (confidence 97)"; got != want {
		t.Errorf("left %q, want %q", got, want)
	}
	if got := text(t, ctx, "#confirm-ok"); got != "Accept 3" {
		t.Errorf("confirm button %q", got)
	}
	screenshot(t, ctx, "bulk-confirm")
	// Enter on the focused button cancels
	if got := eval[string](t, ctx, `document.activeElement.id`); got != "confirm-cancel" {
		t.Errorf("the dialog focuses %q, want Cancel", got)
	}
	press(t, ctx, kb.Enter)
	waitFor(t, ctx, "the cancellation", `document.querySelector('#bulk-status').textContent === 'Cancelled; nothing was changed.'`)

	do(t, ctx, chromedp.Click(chromedp.CSS("#bulk-start")))
	waitFor(t, ctx, "the confirmation", `document.querySelector('#confirm').open`)
	// decided by someone else while the dialog is open
	s.decide(ids[5], "rejected")
	do(t, ctx, chromedp.Click(chromedp.CSS("#confirm-ok")))
	waitFor(t, ctx, "the bulk result", `/^Accepted \d+ of 3/.test(document.querySelector('#bulk-status').textContent)`)
	if got := text(t, ctx, "#bulk-status"); got != "Accepted 2 of 3; 1 failed (listed below). 1 competing revision left for you." {
		t.Errorf("bulk status %q", got)
	}
	if got := text(t, ctx, "#bulk-failures li"); !strings.HasPrefix(got, "#"+ids[5]+" BULK-0006: ") || !strings.Contains(got, "already rejected") {
		t.Errorf("failure %q", got)
	}
	want := map[string]string{ids[0]: "accepted", ids[1]: "pending", ids[2]: "accepted", ids[3]: "pending",
		ids[4]: "pending", ids[5]: "rejected", seven: "pending", rival: "pending"}
	for id, status := range want {
		if got, _ := s.status(id); got != status {
			t.Errorf("revision %s: %s, want %s", id, got, status)
		}
	}
	if got := s.product(a, "BULK-0003").GetString("name"); got != "Three" {
		t.Errorf("BULK-0003 name %q after bulk accept", got)
	}
	waitFor(t, ctx, "the queue to follow", `[...document.querySelectorAll('#queue-list .item')].length === 5`)

	// every client: BULK-0002's name goes to the more confident proposal only
	pick(t, ctx, "#bulk-client", "")
	do(t, ctx, chromedp.Click(chromedp.CSS("#bulk-start")))
	waitFor(t, ctx, "the confirmation", `document.querySelector('#confirm').open`)
	if got := text(t, ctx, "#confirm-text"); !strings.HasPrefix(got, "Accept 2 pending revisions of every client") {
		t.Errorf("confirmation %q", got)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#confirm-ok")))
	s.waitStatus(rival, "accepted")
	s.waitStatus(seven, "accepted")
	if got, _ := s.status(ids[1]); got != "pending" {
		t.Errorf("the less confident proposal for BULK-0002's name is %s", got)
	}
	if got := s.product(a, "BULK-0002").GetString("name"); got != "Two, theirs" {
		t.Errorf("BULK-0002 name %q, want the more confident proposal's", got)
	}
}

// TestKeyboardOnly works through a queue with the keyboard alone: next,
// previous, accept, reject, select a field and accept the selection.
func TestKeyboardOnly(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"BULK-0010", 90, enrichment.Fields{Name: ptr("Ten"), Description: ptr("Tenth item.")}},
		proposal{"BULK-0011", 70, enrichment.Fields{Name: ptr("Eleven")}},
		proposal{"BULK-0012", 50, enrichment.Fields{Name: ptr("Twelve")}},
		proposal{"BULK-0013", 30, enrichment.Fields{Name: ptr("Thirteen")}},
	)
	k1, k2, k3, k4 := ids[0], ids[1], ids[2], ids[3]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	// signing in by keyboard: the email field has the focus, Tab, Enter
	do(t, ctx, chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.CSS("#email")))
	waitFor(t, ctx, "focus in the email field", `document.activeElement?.id === 'email'`)
	press(t, ctx, "ann@alpha.example"+kb.Tab+reviewerPassword+kb.Enter)
	waitQueue(t, ctx)
	waitRevision(t, ctx, k1)
	if got := text(t, ctx, "#keys"); !strings.Contains(got, "next") || !strings.Contains(got, "reject") {
		t.Errorf("keys help %q", got)
	}

	steps := []struct {
		keys string
		want string
	}{
		{"j", k2}, {"j", k3}, {"k", k2}, {kb.ArrowDown, k3}, {kb.ArrowUp, k2}, {"j", k3}, {"k", k2},
	}
	for _, st := range steps {
		press(t, ctx, st.keys)
		waitRevision(t, ctx, st.want)
		if got := selectedID(t, ctx); got != st.want {
			t.Fatalf("after %q the queue selects %s, want %s", st.keys, got, st.want)
		}
	}

	press(t, ctx, "a") // accept k2 → k3 next
	waitGone(t, ctx, k2)
	waitRevision(t, ctx, k3)
	press(t, ctx, "r") // reject k3 → k4, the last
	waitGone(t, ctx, k3)
	waitRevision(t, ctx, k4)
	press(t, ctx, "k") // back to k1
	waitRevision(t, ctx, k1)
	press(t, ctx, "2") // unselect the description
	if sel := eval[[]string](t, ctx, `[...document.querySelectorAll('#revision .pick:checked')].map(c => c.dataset.field)`); !slices.Equal(sel, []string{"name"}) {
		t.Fatalf("selected fields %v after pressing 2", sel)
	}
	press(t, ctx, "s")
	waitGone(t, ctx, k1)
	waitRevision(t, ctx, k4)

	// keys typed into the SKU filter are text, not decisions
	press(t, ctx, "/")
	waitFor(t, ctx, "focus in the SKU filter", `document.activeElement?.id === 'f-sku'`)
	press(t, ctx, "ra")
	waitFor(t, ctx, "the filtered queue", `/Nothing pending/.test(document.querySelector('#queue-summary').textContent)`)

	want := map[string][2]string{k1: {"accepted", "name"}, k2: {"accepted", "name"}, k3: {"rejected", ""}, k4: {"pending", ""}}
	for id, w := range want {
		if w[0] != "pending" {
			s.waitStatus(id, w[0])
		}
		status, fields := s.status(id)
		if status != w[0] || strings.Join(fields, ",") != w[1] {
			t.Errorf("revision %s: %s %v, want %s [%s]", id, status, fields, w[0], w[1])
		}
	}
}
