package browser

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
	"github.com/pocketbase/dbx"
)

// TestLiveQueue: the queue follows what happens elsewhere without a
// reload: a new proposal appears, with the counts; a revision decided
// elsewhere leaves.
func TestLiveQueue(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}},
		proposal{"SKU-M", 60, enrichment.Fields{Name: ptr("Trail Classic")}})
	s.addReviewer(a.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	eval[bool](t, ctx, `window.__same = true`)

	newer := s.submit(a, "submit", proposal{"SKU-NEW", 85, enrichment.Fields{Name: ptr("Newest edition")}})[0]
	waitFor(t, ctx, "the new proposal in the queue", queueIdle+` && [...document.querySelectorAll('#queue-list .item')].map(e => e.dataset.id).join() === `+
		js(strings.Join([]string{ids[0], newer, ids[1]}, ",")))
	waitFor(t, ctx, "the counts", `document.querySelector('#bands .band[data-band=all] .count').textContent === '3'`)

	s.decide(ids[1], "rejected") // elsewhere
	waitGone(t, ctx, ids[1])
	waitFor(t, ctx, "the counts", `document.querySelector('#bands .band[data-band=all] .count').textContent === '2'`)
	if !eval[bool](t, ctx, `window.__same === true`) {
		t.Error("the page was loaded again")
	}
	if got := queueIDs(t, ctx); !slices.Equal(got, []string{ids[0], newer}) {
		t.Errorf("queue %v", got)
	}
}

// TestClaimShownToAnotherReviewer: the revision a reviewer opens is
// claimed for them and released when they move on; another reviewer's
// queue leaves it out unless asked, then says who is reviewing it, the
// revision says so too and cannot be decided from the page, and a
// decision sent anyway is refused (409) and changes nothing.
func TestClaimShownToAnotherReviewer(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}},
		proposal{"SKU-M", 60, enrichment.Fields{Name: ptr("Trail Classic")}},
		proposal{"SKU-NEW", 30, enrichment.Fields{Name: ptr("Newest edition")}})
	runner, trail, newest := ids[0], ids[1], ids[2]
	s.addReviewer(a.Org, "ann@alpha.example")
	s.addReviewer(a.Org, "bob@alpha.example")
	ann := s.reviewerToken("ann@alpha.example")
	if code := s.statusOf(http.MethodPost, "/api/enrichment/review/claims/"+trail, ann); code != 200 {
		t.Fatalf("Ann's claim: %d", code)
	}

	ctx := newTab(t)
	signIn(t, ctx, s.url, "bob@alpha.example")
	if got := queueIDs(t, ctx); !slices.Equal(got, []string{runner, newest}) {
		t.Errorf("Bob's queue %v: Ann's revision %s should be left out", got, trail)
	}
	waitRevision(t, ctx, runner) // opened, so claimed for Bob
	s.waitClaim(runner, "bob@alpha.example")

	do(t, ctx, chromedp.Click(chromedp.CSS("#triage-box summary")), chromedp.Click(chromedp.CSS("#f-claimed")))
	waitFor(t, ctx, "Ann's revision, marked", queueIdle+` && /ann@alpha\.example is reviewing/.test(document.querySelector('#queue-list .item[data-id="`+trail+`"] .meta')?.textContent ?? '')`)
	openRevision(t, ctx, trail)
	waitFor(t, ctx, "who is reviewing it", `!document.querySelector('#claim-holder').hidden &&
		/^ann@alpha\.example is reviewing this revision/.test(document.querySelector('#claim-holder').textContent)`)
	s.waitClaim(runner, "") // Bob moved on: released

	waitFor(t, ctx, "deciding off", `document.querySelector('#reject').disabled`)
	s.call(http.MethodPatch, "/api/collections/revisions/records/"+trail, s.reviewerToken("bob@alpha.example"),
		`{"status":"rejected","reason":"other"}`, http.StatusConflict, nil)
	if got, _ := s.status(trail); got != "pending" {
		t.Errorf("Ann's revision is %s after Bob's refused decision", got)
	}
	// once Ann lets go, Bob decides it when he comes back to it
	if code := s.statusOf(http.MethodDelete, "/api/enrichment/review/claims/"+trail, ann); code != 204 {
		t.Fatalf("Ann's release: %d", code)
	}
	openRevision(t, ctx, runner)
	openRevision(t, ctx, trail)
	waitFor(t, ctx, "nobody else reviewing it", `document.querySelector('#claim-holder').hidden`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#reject")))
	s.waitStatus(trail, "rejected")
}

// TestTriageFilters: the queue's triage filters narrow the list and
// combine, and clearing them brings every revision back.
func TestTriageFilters(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-1", 92, enrichment.Fields{Description: ptr("Lighter."),
			Attributes: &[]enrichment.StoredAttribute{{Attribute: "Color", Detail: "Navy"}}}},
		proposal{"SKU-M", 60, enrichment.Fields{Name: ptr("Trail Two")}},
		proposal{"SKU-NEW", 30, enrichment.Fields{Name: ptr("Newest edition")}})
	runner, trail, newest := ids[0], ids[1], ids[2]
	rival := s.submit(a, "submit", proposal{"SKU-M", 50, enrichment.Fields{Name: ptr("Trail Too")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")
	acme, err := s.app.FindFirstRecordByFilter("brands", "organization = {:org} && name = 'Acme'", dbx.Params{"org": string(a.Org)})
	if err != nil {
		t.Fatal(err)
	}

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#triage-box summary")))
	listed := func(what string, want ...string) {
		t.Helper()
		waitFor(t, ctx, what, queueIdle+` && [...document.querySelectorAll('#queue-list .item')].map(e => e.dataset.id).join() === `+js(strings.Join(want, ",")))
	}
	typeIn := func(sel, value string) {
		t.Helper()
		eval[bool](t, ctx, `(() => { const i = document.querySelector(`+js(sel)+`); i.value = `+js(value)+`; i.dispatchEvent(new Event('input', { bubbles: true })); return true; })()`)
	}
	listed("everything", runner, trail, rival, newest)
	typeIn("#f-q", "trail")
	listed("text in the product's name", trail, rival)
	do(t, ctx, chromedp.Click(chromedp.CSS("#f-competing")))
	listed("competing trail", trail, rival)
	typeIn("#f-q", "")
	listed("competing", trail, rival)
	do(t, ctx, chromedp.Click(chromedp.CSS("#f-competing")))
	pick(t, ctx, "#f-field", "name")
	listed("proposing a name", trail, rival, newest)
	pick(t, ctx, "#f-brand", acme.Id)
	listed("names of Acme", trail, rival)
	pick(t, ctx, "#f-field", "")
	typeIn("#f-attr", "Color")
	listed("Color of Acme", runner)
	typeIn("#f-attr", "")
	pick(t, ctx, "#f-brand", "")
	typeIn("#f-category", "running")
	listed("category Running", runner)
	typeIn("#f-category", "")
	listed("everything again", runner, trail, rival, newest)
	if n := s.statuses.get(http.StatusBadRequest); n != 0 {
		t.Errorf("%d answers were 400", n)
	}
}

// reviewerToken signs in the reviewer with that email: their auth token.
func (s *service) reviewerToken(email string) string {
	s.t.Helper()
	r, err := s.app.FindAuthRecordByEmail("reviewers", email)
	if err != nil {
		s.t.Fatal(err)
	}
	token, err := r.NewAuthToken()
	if err != nil {
		s.t.Fatal(err)
	}
	return token
}

// statusOf sends a request without a body to the server with token: its
// status.
func (s *service) statusOf(method, path, token string) int {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// waitClaim waits until revision id is claimed by the reviewer with that
// email ("": by nobody).
func (s *service) waitClaim(id, email string) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		claim, err := store.New(s.app).Review().ClaimOf(s.f.A.Org, id)
		if err != nil {
			s.t.Fatal(err)
		}
		if claim.Email == email {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("revision %s claimed by %q, want %q", id, claim.Email, email)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestTriageFiltersInTheAddress: the triage filters are in the address,
// so a reload keeps them: the form shows them again, opened, and the
// queue lists what they match.
func TestTriageFiltersInTheAddress(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-1", 92, enrichment.Fields{Description: ptr("Lighter.")}},
		proposal{"SKU-M", 60, enrichment.Fields{Name: ptr("Trail Two")}})
	trail := ids[1]
	rival := s.submit(a, "submit", proposal{"SKU-M", 50, enrichment.Fields{Name: ptr("Trail Too")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#triage-box summary")))
	listed := func(what string, want ...string) {
		t.Helper()
		waitFor(t, ctx, what, queueIdle+` && [...document.querySelectorAll('#queue-list .item')].map(e => e.dataset.id).join() === `+js(strings.Join(want, ",")))
	}
	eval[bool](t, ctx, `(() => { const i = document.querySelector('#f-q'); i.value = 'trail'; i.dispatchEvent(new Event('input', { bubbles: true })); return true; })()`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#f-competing")))
	listed("competing trail", trail, rival)
	waitFor(t, ctx, "the filters in the address", `new URLSearchParams(location.search).get('q') === 'trail' && new URLSearchParams(location.search).get('competing') === 'true'`)

	do(t, ctx, chromedp.Reload())
	listed("competing trail after a reload", trail, rival)
	if !eval[bool](t, ctx, `document.querySelector('#triage-box').open && document.querySelector('#f-q').value === 'trail' && document.querySelector('#f-competing').checked`) {
		t.Error("the triage form does not show the filters of the address after a reload")
	}
}

// TestDecidedRevisionNotClaimed: opening a decided revision (a link to
// it) claims nothing, so no 409 comes back; the pending one opened next
// is claimed as usual.
func TestDecidedRevisionNotClaimed(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}},
		proposal{"SKU-M", 60, enrichment.Fields{Name: ptr("Trail Classic")}})
	decided, pending := ids[0], ids[1]
	s.decide(decided, "accepted")
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	openLink(t, ctx, s.url, decided)
	waitRevision(t, ctx, decided)
	openRevision(t, ctx, pending)
	s.waitClaim(pending, "ann@alpha.example") // note: claims follow the revisions drawn, in order
	if n := s.statuses.requests("POST /api/enrichment/review/claims/" + decided); n != 0 {
		t.Errorf("the decided revision was claimed %d times", n)
	}
	if n := s.statuses.get(http.StatusConflict); n != 0 {
		t.Errorf("%d answers were 409", n)
	}
}

// TestClaimedRevisionCannotBeDecided: on a revision another reviewer
// holds, every decision button is disabled and the decision keys do
// nothing, while the claim lasts; once it is gone (Bob's own claim then
// succeeds, as at its renewal), the buttons come back as they were.
func TestClaimedRevisionCannotBeDecided(t *testing.T) {
	s := newService(t)
	a := s.f.A
	id := s.submit(a, "both", proposal{"SKU-M", 60, enrichment.Fields{Name: ptr("Trail Classic")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")
	s.addReviewer(a.Org, "bob@alpha.example")
	ann := s.reviewerToken("ann@alpha.example")
	if code := s.statusOf(http.MethodPost, "/api/enrichment/review/claims/"+id, ann); code != 200 {
		t.Fatalf("Ann's claim: %d", code)
	}

	ctx := newTab(t)
	// note: the claim's renewal, every minute, is run by the test when it wants (the last one set)
	onEveryLoad(t, ctx, `{ const every = window.setInterval; window.__renew = null;
		window.setInterval = (f, ms, ...args) => { if (ms === 60000) window.__renew = f; return every(f, ms, ...args); }; }`)
	signIn(t, ctx, s.url, "bob@alpha.example")
	openLink(t, ctx, s.url, id)
	waitRevision(t, ctx, id)
	waitFor(t, ctx, "who is reviewing it", `!document.querySelector('#claim-holder').hidden`)
	buttons := `[...document.querySelectorAll('#decide-actions button')]`
	if n := eval[int](t, ctx, buttons+`.length`); n == 0 {
		t.Fatal("no decision buttons")
	}
	if on := eval[[]string](t, ctx, buttons+`.filter(b => !b.disabled).map(b => b.id)`); len(on) != 0 {
		t.Errorf("decision buttons enabled on a revision Ann holds: %v", on)
	}
	do(t, ctx, chromedp.Focus(chromedp.CSS("#revision-body")))
	for _, key := range []string{"a", "s", "r"} {
		press(t, ctx, key)
		// note: a decision is held at once, as the key is handled: its notice names the revision
		if got := text(t, ctx, "#notice"); strings.Contains(got, "#"+id) {
			t.Fatalf("key %s decided: %q", key, got)
		}
	}
	if got := text(t, ctx, "#decision-status"); !strings.Contains(got, "ann@alpha.example is reviewing this revision") {
		t.Errorf("the keys say %q", got)
	}

	// Ann lets go: Bob's claim (as its renewal would) succeeds and deciding is on again
	if code := s.statusOf(http.MethodDelete, "/api/enrichment/review/claims/"+id, ann); code != 204 {
		t.Fatalf("Ann's release: %d", code)
	}
	eval[bool](t, ctx, `(window.__renew(), true)`)
	waitFor(t, ctx, "deciding on again", `document.querySelector('#claim-holder').hidden && !document.querySelector('#reject').disabled && !document.querySelector('#accept-all').disabled`)
	press(t, ctx, "r")
	s.waitStatus(id, "rejected")
	if n := s.statuses.requests("PATCH /api/collections/revisions/records/" + id); n != 1 {
		t.Errorf("%d decisions sent, want the last one only", n)
	}
}
