package browser

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
	"github.com/pocketbase/dbx"
)

// TestLinkToRevisionBeyondFirstPage: a link to a revision that is not on
// the queue's first page opens the page that holds it, marks it in the
// list and keeps the address, also after a reload; revisions that tie on
// confidence and time are found among their ties.
func TestLinkToRevisionBeyondFirstPage(t *testing.T) {
	s := newService(t)
	a := s.f.A
	var items []proposal
	for i := range 60 {
		// note: one batch, so one submission time; three at each confidence
		items = append(items, proposal{fmt.Sprintf("BULK-%04d", i+1), 99 - i/3, enrichment.Fields{Name: ptr(fmt.Sprintf("Linked %d", i))}})
	}
	ids := s.submit(a, "both", items...)
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	for _, i := range []int{56, 49, 50} {
		id := ids[i]
		openLink(t, ctx, s.url, id)
		waitRevision(t, ctx, id)
		waitFor(t, ctx, "the list to mark it", `document.querySelector('#queue-list .item[aria-current=true]')?.dataset.id === `+js(id))
		page := "Page 1 of 2"
		if i >= 50 {
			page = "Page 2 of 2"
		}
		if got := text(t, ctx, "#page-info"); got != page {
			t.Errorf("revision %d: %s, want %s", i, got, page)
		}
		if got := eval[string](t, ctx, `location.hash`); got != "#queue/"+id {
			t.Errorf("revision %d: the address became %s", i, got)
		}
	}
	// the next one is the next of the queue
	press(t, ctx, "j")
	waitRevision(t, ctx, ids[51])
	if got := eval[string](t, ctx, `location.hash`); got != "#queue/"+ids[51] {
		t.Errorf("after j the address is %s", got)
	}

	// a decided revision by link: shown, nothing marked, the address kept
	s.decide(ids[0], "accepted")
	openLink(t, ctx, s.url, ids[0])
	waitRevision(t, ctx, ids[0])
	if got := selectedID(t, ctx); got != "" {
		t.Errorf("the list marks %s for a decided revision", got)
	}
	if got := eval[string](t, ctx, `location.hash`); got != "#queue/"+ids[0] {
		t.Errorf("the address became %s", got)
	}
	// and j goes to the queue's first
	press(t, ctx, "j")
	waitRevision(t, ctx, ids[1])
}

// TestClosedRevisions: a decided revision opened by link is shown as
// decided, with no warning that its product changed and no decision; so
// are superseded and expired ones, and one overdue but not yet expired.
func TestClosedRevisions(t *testing.T) {
	s := newService(t)
	a := s.f.A
	decided := s.submit(a, "both", proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro"),
		Attributes: &[]enrichment.StoredAttribute{{Attribute: "Color", Detail: "Crimson"}}}})[0]
	rev := s.record("revisions", decided)
	rev.Set("status", "accepted")
	rev.Set("approvedFields", []string{"name", "attributes"})
	rev.Set("reason", "")
	if err := s.app.Save(rev); err != nil {
		t.Fatal(err)
	}
	older := s.submit(a, "both", proposal{"SKU-NEW", 50, enrichment.Fields{Name: ptr("First try")}})[0]
	newer := s.submit(a, "both", proposal{"SKU-NEW", 60, enrichment.Fields{Name: ptr("Second try")}})[0]
	expired := s.submit(a, "both", proposal{"BULK-0001", 70, enrichment.Fields{Name: ptr("Too late")}})[0]
	overdue := s.submit(a, "both", proposal{"BULK-0002", 70, enrichment.Fields{Name: ptr("Late")}})[0]
	long := store.FormatTime(time.Now().Add(-100 * 24 * time.Hour))
	if _, err := s.app.DB().Update("revisions", dbx.Params{"status": "expired", "closedAt": store.FormatTime(time.Now())}, dbx.HashExp{"id": expired}).Execute(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.app.DB().Update("revisions", dbx.Params{"created": long}, dbx.HashExp{"id": overdue}).Execute(); err != nil {
		t.Fatal(err)
	}
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	cases := []struct {
		id, note string
		states   map[string]string
	}{
		{decided, "This revision was accepted (name, attributes)", map[string]string{"name": "applied", "attributes": "applied"}},
		{older, "Superseded on", map[string]string{"name": "superseded"}},
		{expired, "Expired on", map[string]string{"name": "expired"}},
		{overdue, "", map[string]string{"name": ""}},
	}
	for _, c := range cases {
		openLink(t, ctx, s.url, c.id)
		waitRevision(t, ctx, c.id)
		warning := eval[string](t, ctx, `document.querySelector('#rev-warning')?.textContent ?? ''`)
		if c.id == overdue {
			if !strings.Contains(warning, "waited longer than the organization allows (90 days)") {
				t.Errorf("overdue revision: warning %q", warning)
			}
		} else if warning != "" {
			t.Errorf("revision %s: warning %q", c.id, warning)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('#decide-actions button, #revision .pick, .badge.warn').length`); n != 0 {
			t.Errorf("revision %s: %d decision controls or changed-since badges", c.id, n)
		}
		if note := eval[string](t, ctx, `document.querySelector('#closed-note')?.textContent ?? ''`); !strings.HasPrefix(note, c.note) {
			t.Errorf("revision %s: note %q, want %q…", c.id, note, c.note)
		}
		states := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('.field-block')]
			.map(b => [b.dataset.field, b.querySelector('.field-head .badge')?.textContent ?? '']))`)
		if !maps.Equal(states, c.states) {
			t.Errorf("revision %s: field states %v, want %v", c.id, states, c.states)
		}
		press(t, ctx, "a")
		press(t, ctx, "r")
	}
	screenshot(t, ctx, "closed-overdue")
	// the superseded one links to its successor
	openLink(t, ctx, s.url, older)
	waitRevision(t, ctx, older)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#closed-note a`)))
	waitRevision(t, ctx, newer)
	for id, want := range map[string]string{decided: "accepted", older: "superseded", expired: "expired", overdue: "pending"} {
		if got, _ := s.status(id); got != want {
			t.Errorf("revision %s: %s, want %s", id, got, want)
		}
	}
}

// TestStaleProposal: a proposal made before the product changed shows what
// accepting does to the product as it is now: an attribute the product
// has gained since is "changed" (not "added"), and one the proposal leaves
// alone is kept, with nothing in the Proposed column.
func TestStaleProposal(t *testing.T) {
	s := newService(t)
	a := s.f.A
	id := s.submit(a, "both", proposal{"SKU-NEW", 50, enrichment.Fields{Attributes: &[]enrichment.StoredAttribute{
		{Attribute: "Color", Detail: "Crimson"}, {Attribute: "Size", Detail: "44"}}}})[0]
	product := s.product(a, "SKU-NEW")
	product.Set("attributes", []enrichment.StoredAttribute{{Attribute: "Color", Detail: "Red"}, {Attribute: "Material", Detail: "Leather"}})
	if err := s.app.Save(product); err != nil {
		t.Fatal(err)
	}
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	if got := text(t, ctx, "#rev-warning"); !strings.Contains(got, "changed since this proposal was made (Attributes)") {
		t.Errorf("warning %q", got)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('table.attrs tr.more button')?.click()`)) // the kept ones
	rows := eval[map[string][]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('table.attrs tr[data-attribute]')]
		.map(r => [r.dataset.attribute, [...r.querySelectorAll('td')].map(c => c.textContent)]))`)
	want := map[string][]string{
		"Color":    {"Red", "—changed", "Red Crimson", "changed"}, // a space between the removed and the added text (textContent too)
		"Size":     {"—", "same", "44", "added"},
		"Material": {"Leather", "—changed", "— not proposed", "kept, not in proposal"},
	}
	if !maps.EqualFunc(rows, want, slices.Equal) {
		t.Errorf("rows (now, when proposed, proposed, accepting) %v,\nwant %v", rows, want)
	}
	screenshot(t, ctx, "diff-stale")

	// accepting does what the rows said
	press(t, ctx, "a")
	s.waitStatus(id, "accepted")
	got := map[string]string{}
	var attrs []enrichment.StoredAttribute
	if err := s.product(a, "SKU-NEW").UnmarshalJSONField("attributes", &attrs); err != nil {
		t.Fatal(err)
	}
	for _, at := range attrs {
		got[at.Attribute] = at.Detail
	}
	if w := map[string]string{"Color": "Crimson", "Material": "Leather", "Size": "44"}; !maps.Equal(got, w) {
		t.Errorf("attributes after accepting %v, want %v", got, w)
	}
}
