package browser

import (
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestDecidedViewNamesThePerson (defect 8): a decided revision names its
// reviewer by their address (not "reviewer:…"), and a rejected one has no
// "Accepting" column: it applied nothing.
func TestDecidedViewNamesThePerson(t *testing.T) {
	s := newService(t)
	a := s.f.A
	id := s.submit(a, "both", proposal{"SKU-M-RED", 60, enrichment.Fields{Attributes: &[]enrichment.StoredAttribute{
		{Attribute: "Color", Detail: "Crimson"}}}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	do(t, ctx, chromedp.Click(chromedp.CSS("#reject")))
	s.waitStatus(id, "rejected")
	openLink(t, ctx, s.url, id)
	waitFor(t, ctx, "the decided revision", `!!document.querySelector('#closed-note') && !!document.querySelector('table.attrs')`)
	note := text(t, ctx, "#closed-note")
	if !strings.Contains(note, " by ann@alpha.example.") || strings.Contains(note, "reviewer:") {
		t.Errorf("closed note %q", note)
	}
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll('table.attrs thead th')].map(th => th.textContent)`); strings.Contains(strings.Join(got, ","), "Accepting") {
		t.Errorf("a rejected revision's attributes have the columns %q", got)
	}
	if eval[bool](t, ctx, `!!document.querySelector('table.attrs .c-change')`) {
		t.Error("a rejected revision says what accepting does to each attribute")
	}
}

// TestSignOutRightAfterADecision (defect 9): signing out just after a
// decision sends nothing without the sign-in: no answer is a 401.
func TestSignOutRightAfterADecision(t *testing.T) {
	s := newService(t)
	ids := s.submit(s.f.A, "both", names("BULK-0001", "BULK-0002")...)
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	press(t, ctx, "a")
	do(t, ctx, chromedp.Click(chromedp.CSS("#sign-out")))
	waitFor(t, ctx, "the sign-in form", `!document.querySelector('#signin').hidden`)
	s.waitStatus(ids[0], "accepted")
	time.Sleep(900 * time.Millisecond) // note: past the queue's 400 ms reload
	if n := s.statuses.get(401); n != 0 {
		t.Errorf("%d requests answered 401 after signing out", n)
	}
}

// TestClearKeepsTheFocus (defect 10): Clear of the selection leaves the
// focus on the list, not on the page's body.
func TestClearKeepsTheFocus(t *testing.T) {
	s := newService(t)
	ids := s.submit(s.f.A, "both", names("BULK-0001", "BULK-0002")...)
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	press(t, ctx, "x")
	waitFor(t, ctx, "the selection", `!document.querySelector('#selection').hidden`)
	do(t, ctx, chromedp.Focus(chromedp.CSS("#selection-clear")))
	press(t, ctx, kb.Enter)
	waitFor(t, ctx, "the selection cleared", `document.querySelector('#selection').hidden`)
	if got := eval[string](t, ctx, `document.activeElement.matches('#queue-list .item[aria-current=true]') ? 'list' : document.activeElement.tagName + '#' + document.activeElement.id`); got != "list" {
		t.Errorf("focus after Clear on %s, want the list's revision", got)
	}
	press(t, ctx, "j") // the keyboard goes on from there
	waitRevision(t, ctx, ids[1])
}

// TestRejectKeySaysAllInCompetingView (defect 11): with competing
// proposals shown, the legend says that r rejects every one of them; alone,
// that it rejects the revision.
func TestRejectKeySaysAllInCompetingView(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both", proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}},
		proposal{"BULK-0001", 50, enrichment.Fields{Name: ptr("Alone")}})
	s.submit(a, "submit", proposal{"SKU-1", 70, enrichment.Fields{Name: ptr("Runner Classic")}})
	s.addReviewer(a.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	waitFor(t, ctx, "the proposals together", `document.querySelectorAll('.choice').length > 0`)
	if got := text(t, ctx, "#keys .key-reject"); got != "reject all 2 proposals" {
		t.Errorf("legend of r with competing proposals %q", got)
	}
	openRevision(t, ctx, ids[1])
	if got := text(t, ctx, "#keys .key-reject"); got != "reject" {
		t.Errorf("legend of r alone %q", got)
	}
}

// TestDiffKeepsTheSpace (defect 12): a removed word keeps the space before
// it, so that the words do not run together.
func TestDiffKeepsTheSpace(t *testing.T) {
	s := newService(t)
	a := s.f.A
	p := s.product(a, "SKU-M")
	p.Set("name", "Trail Shoe RS-134199")
	if err := s.app.Save(p); err != nil {
		t.Fatal(err)
	}
	id := s.submit(a, "both", proposal{"SKU-M", 80, enrichment.Fields{Name: ptr("Trail Shoe")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	diff := `document.querySelector('.field-block[data-field="name"] .inline .diff')`
	if got := eval[string](t, ctx, diff+`.textContent`); got != "Trail Shoe RS-134199" {
		t.Errorf("name diff reads %q", got)
	}
	if got := eval[string](t, ctx, diff+`.querySelector('del').textContent`); got != "RS-134199" {
		t.Errorf("struck %q", got)
	}
}

// TestDashboardLinkForSuperusersOnly (defect 13): a reviewer is not offered
// the dashboard, which only superusers may use; a superuser is.
func TestDashboardLinkForSuperusersOnly(t *testing.T) {
	s := newService(t)
	id := s.submit(s.f.A, "both", names("SKU-1")...)[0]
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	if eval[bool](t, ctx, `!!document.querySelector('#product-context a[href^="/_/"]')`) {
		t.Error("a reviewer is offered the dashboard")
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#sign-out")))
	waitFor(t, ctx, "the sign-in form", `!document.querySelector('#signin').hidden`)
	signInWith(t, ctx, s.url, fixture.SuperuserEmail, "superuser-password")
	openLink(t, ctx, s.url, id)
	waitRevision(t, ctx, id)
	if !eval[bool](t, ctx, `!!document.querySelector('#product-context a.dashboard[href^="/_/"]')`) {
		t.Error("a superuser is not offered the dashboard")
	}
}
