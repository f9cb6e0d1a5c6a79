package browser

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestCompetingProposals: the pending proposals of three clients for one
// product are shown together, field by field, each with its client and
// confidence, the most confident picked by default; the reviewer picks
// one value per field, and one action accepts the picks and rejects the
// rest with the reason (required here, chosen by keyboard) and comment.
// When the proposals change before the action is sent, nothing is sent.
func TestCompetingProposals(t *testing.T) {
	s := newService(t)
	a := s.f.A
	org := s.record("organizations", string(a.Org))
	org.Set("requireReason", true)
	if err := s.app.Save(org); err != nil {
		t.Fatal(err)
	}
	pro := s.submit(a, "both", proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro"),
		Description: ptr("A light and fast running shoe.")}})[0]
	classic := s.submit(a, "submit", proposal{"SKU-1", 70, enrichment.Fields{Name: ptr("Runner Classic"),
		Files: &[]string{"https://docs.example/classic.pdf"}}})[0]
	daily := s.submit(a, "read", proposal{"SKU-1", 95, enrichment.Fields{Description: ptr("The running shoe for daily training.")}})[0]
	// two more, for the change before sending
	trailA := s.submit(a, "both", proposal{"SKU-M", 60, enrichment.Fields{Name: ptr("Trail One")}})[0]
	trailB := s.submit(a, "submit", proposal{"SKU-M", 50, enrichment.Fields{Name: ptr("Trail Two")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")
	before := s.product(a, "SKU-1")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, daily) // the most confident first
	waitFor(t, ctx, "the proposals together", `document.querySelectorAll('.choice').length === 3`)
	waitFor(t, ctx, "the queue's marks", `document.querySelector('#queue-list .item[data-id="`+pro+`"] .rivals')?.textContent === '3 proposals · '`)
	choices := eval[map[string][]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('.choice')].map(c =>
		[c.dataset.field, [...c.querySelectorAll('.option')].map(o => (o.querySelector('input').checked ? '*' : '') + (o.dataset.revision || 'keep'))]))`)
	want := map[string][]string{
		"name":        {"keep", "*" + pro, classic},
		"description": {"keep", "*" + daily, pro},
		"files":       {"keep", "*" + classic},
	}
	if !maps.EqualFunc(choices, want, slices.Equal) {
		t.Errorf("choices %v, want (the most confident picked) %v", choices, want)
	}
	if got := text(t, ctx, `.choice[data-field=name] .option[data-revision="`+classic+`"] .who`); got != "submit · confidence 70 · #"+classic {
		t.Errorf("who proposes %q", got)
	}
	if got := text(t, ctx, "#plan"); got != "Applying the choices will accept #"+daily+" (description); accept #"+pro+" (name, in part); accept #"+classic+" (files, in part)." {
		t.Errorf("plan %q", got)
	}
	screenshot(t, ctx, "compete")

	// the name of "submit", the description kept, the files of "submit"
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`.choice[data-field=name] .option[data-revision="`+classic+`"] input`)),
		chromedp.Click(chromedp.CSS(`.choice[data-field=description] .option[data-revision=""] input`)),
		chromedp.SendKeys(chromedp.CSS("#comment"), "Another vendor's value was better."))
	if got := text(t, ctx, "#plan"); got != "Applying the choices will accept #"+classic+" (name, files); reject #"+daily+"; reject #"+pro+"." {
		t.Errorf("plan %q", got)
	}
	// the first a shows what the choices apply; a reason is required: the
	// second a asks for it, Enter in the picker applies
	do(t, ctx, chromedp.Focus(chromedp.CSS("#revision-body")))
	press(t, ctx, "a")
	waitFor(t, ctx, "the summary", `document.activeElement?.id === 'apply-summary'`)
	press(t, ctx, "a")
	waitFor(t, ctx, "the reason picker", `document.activeElement?.id === 'reason'`)
	if got := text(t, ctx, "#decision-status"); !strings.HasPrefix(got, "Choose a reason") {
		t.Errorf("status %q", got)
	}
	press(t, ctx, strings.Repeat(kb.ArrowDown, 5)+kb.Enter) // duplicate
	for _, id := range []string{pro, classic, daily} {
		waitGone(t, ctx, id)
	}
	// the comment goes with every decision, the full accept too
	outcome := map[string][3]string{classic: {"accepted", "", "Another vendor's value was better."}, pro: {"rejected", "duplicate", "Another vendor's value was better."},
		daily: {"rejected", "duplicate", "Another vendor's value was better."}}
	for id, w := range outcome {
		s.waitStatus(id, w[0])
		r := s.record("revisions", id)
		if got := [3]string{r.GetString("status"), r.GetString("reason"), r.GetString("comment")}; got != w {
			t.Errorf("revision %s: %v, want %v", id, got, w)
		}
	}
	after := s.product(a, "SKU-1")
	if after.GetString("name") != "Runner Classic" || after.GetString("description") != before.GetString("description") ||
		!slices.Equal(after.GetStringSlice("files"), []string{"https://docs.example/classic.pdf"}) {
		t.Errorf("product after the choices: %q, %q, %v", after.GetString("name"), after.GetString("description"), after.GetStringSlice("files"))
	}

	// the proposals change before the choices are sent: nothing is sent
	waitRevision(t, ctx, trailA)
	waitFor(t, ctx, "the proposals together", `document.querySelectorAll('.choice').length === 1`)
	s.decide(trailB, "rejected")
	do(t, ctx, chromedp.Click(chromedp.CSS("#reason")))
	pick(t, ctx, "#reason", "other")
	do(t, ctx, chromedp.Click(chromedp.CSS("#apply-choices")))
	waitFor(t, ctx, "the refusal", `/changed meanwhile/.test(document.querySelector('#notice').textContent)`)
	if got, _ := s.status(trailA); got != "pending" {
		t.Errorf("revision %s is %s after a refused group", trailA, got)
	}
	waitFor(t, ctx, "the revision back in the queue", `document.querySelector('#queue-list .item[data-id="`+trailA+`"]')`)
}

// TestCompetingApplyShowsFirst: with competing proposals, t shows the
// revision alone and t again shows them together (the legend and the keys
// dialog say so); the first a shows what the choices apply, focused, and
// applies nothing; a pick changed takes that summary back; a second a
// applies what the summary said.
func TestCompetingApplyShowsFirst(t *testing.T) {
	s := newService(t)
	a := s.f.A
	pro := s.submit(a, "both", proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro"), Description: ptr("Light and fast.")}})[0]
	classic := s.submit(a, "submit", proposal{"SKU-1", 70, enrichment.Fields{Name: ptr("Runner Classic")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, pro)
	waitFor(t, ctx, "the proposals together", `document.querySelectorAll('#revision-body .choice').length === 2`)
	if got := text(t, ctx, "#keys"); !strings.Contains(got, "t alone / together") {
		t.Errorf("the legend %q does not name t", got)
	}
	do(t, ctx, chromedp.Focus(chromedp.CSS("#revision-body")))
	press(t, ctx, "t")
	waitFor(t, ctx, "the revision alone", `!document.querySelector('#revision-body .choice') && document.querySelector('#show-together')`)
	press(t, ctx, "t")
	waitFor(t, ctx, "the proposals together again", `document.querySelectorAll('#revision-body .choice').length === 2`)

	press(t, ctx, "a")
	waitFor(t, ctx, "the summary, focused", `document.activeElement?.id === 'apply-summary' && document.activeElement.checkVisibility()`)
	summary := text(t, ctx, "#apply-summary")
	for _, want := range []string{"Press a again", "Name: both #" + pro + ": Runner Pro", "Description: both #" + pro + ": Light and fast.", "accept #" + pro + " (name, description); reject #" + classic} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary %q does not say %q", summary, want)
		}
	}
	// note: a decision is held as its key is handled, so none held now is none made
	if n := eval[int](t, ctx, `document.querySelectorAll('#notice .held').length`); n != 0 {
		t.Fatalf("the first a held a decision: %q", text(t, ctx, "#notice"))
	}
	// a pick changed: the summary is taken back, and a shows the new one
	do(t, ctx, chromedp.Click(chromedp.CSS(`.choice[data-field=name] .option[data-revision="`+classic+`"] input`)))
	waitFor(t, ctx, "the summary gone", `!document.querySelector('#apply-summary').checkVisibility()`)
	do(t, ctx, chromedp.Focus(chromedp.CSS("#revision-body")))
	press(t, ctx, "a")
	waitFor(t, ctx, "the new summary", `document.activeElement?.id === 'apply-summary' && /Name: submit #`+classic+`: Runner Classic/.test(document.activeElement.textContent)`)
	press(t, ctx, "a")
	waitGone(t, ctx, pro)
	waitGone(t, ctx, classic)
	if fields := s.waitStatus(pro, "accepted"); !slices.Equal(fields, []string{"description"}) {
		t.Errorf("revision %s accepted %v, want [description]", pro, fields)
	}
	s.waitStatus(classic, "accepted")
	if p := s.product(a, "SKU-1"); p.GetString("name") != "Runner Classic" || p.GetString("description") != "Light and fast." {
		t.Errorf("product: %q, %q", p.GetString("name"), p.GetString("description"))
	}

	press(t, ctx, "?")
	waitFor(t, ctx, "the keys", `document.querySelector('#shortcuts').open`)
	if keys := text(t, ctx, "#shortcuts"); !strings.Contains(keys, "the revision alone, or with the proposals competing") ||
		!strings.Contains(keys, "a second a applies") {
		t.Errorf("the keys dialog does not explain t and the second a: %q", keys)
	}
}
