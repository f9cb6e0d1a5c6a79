package browser

import (
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// The page draws a revision's review state as the server sends it (the
// revision's review member) and works none of it out: each test gives the
// page a state that its own reading of the revision would not give.

// TestOverdueByTheServersClock: a proposal the server's clock says waited
// longer than the organization allows shows as overdue, with no decision
// to make, though by the browser's clock it is a day old.
func TestOverdueByTheServersClock(t *testing.T) {
	s := newService(t)
	a := s.f.A
	org := s.record("organizations", string(a.Org))
	org.Set("proposalTtlDays", 30)
	if err := s.app.Save(org); err != nil {
		t.Fatal(err)
	}
	id := s.submit(a, "both", proposal{"SKU-1", 90, enrichment.Fields{Name: ptr("Runner Overdue")}})[0]
	later := clock.Now(s.app).Add(60 * 24 * time.Hour)
	clock.Set(s.app, func() time.Time { return later })
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	openLink(t, ctx, s.url, id)
	waitRevision(t, ctx, id)
	if got := text(t, ctx, "#rev-warning"); !strings.Contains(got, "waited longer than the organization allows (30 days)") {
		t.Errorf("warning %q, want that it waited longer than 30 days", got)
	}
	if eval[bool](t, ctx, `document.querySelector('#decide-actions #accept-all, #decide-actions #reject') !== null`) {
		t.Error("decision buttons on a revision the server says is overdue")
	}
	if eval[bool](t, ctx, `document.querySelector('#revision .pick') !== null`) {
		t.Error("tick boxes on a revision the server says is overdue")
	}
}

// bendReview binds, before the service's own, a handler that changes the
// review state the service computed for the revision id() names: the page
// must show what it is sent.
func bendReview(id func() string, bend func(*enrichment.ReviewState)) func(core.App) {
	return func(app core.App) {
		app.OnRecordEnrich("revisions").Bind(&hook.Handler[*core.RecordEnrichEvent]{
			Id:       "testBendReview",
			Priority: -100, // note: runs first, so its code after Next runs after the service's
			Func: func(e *core.RecordEnrichEvent) error {
				if err := e.Next(); err != nil {
					return err
				}
				if state, ok := e.Record.Get("review").(enrichment.ReviewState); ok && e.Record.Id == id() {
					bend(&state)
					e.Record.Set("review", state)
				}
				return nil
			},
		})
	}
}

// supersedeColorAskReasons marks the attribute Color superseded, and a
// reason needed for whatever pending item is left unapplied.
func supersedeColorAskReasons(r *enrichment.ReviewState) {
	r.ReasonRequired = true
	for i := range r.Fields {
		r.Fields[i].ReasonNeeded = r.Fields[i].Pending
	}
	for i := range r.Attributes {
		if r.Attributes[i].Name == "Color" {
			r.Attributes[i] = enrichment.ItemState{Name: "Color", Outcome: enrichment.OutcomeSuperseded}
			continue
		}
		r.Attributes[i].ReasonNeeded = r.Attributes[i].Pending
	}
}

// TestPageDrawsTheServersStates: an attribute the server says is
// superseded has no tick box and says so, though the revision records it
// pending; a reason the server says is needed is asked for before a
// rejection is held, though the organization's own setting needs none.
func TestPageDrawsTheServersStates(t *testing.T) {
	var id string
	s := newService(t, bendReview(func() string { return id }, supersedeColorAskReasons))
	a := s.f.A
	fields := attributesProposal("Color", "Blue", "Fit", "Narrow")
	fields.Name = ptr("Runner Bent")
	id = s.submit(a, "both", proposal{"SKU-1", 90, fields})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	openLink(t, ctx, s.url, id)
	waitRevision(t, ctx, id)
	if eval[bool](t, ctx, attrBox("Color")+` !== undefined`) || !eval[bool](t, ctx, attrBox("Fit")+` !== undefined`) {
		t.Error("want a tick box for Fit and none for Color, which the server says is superseded")
	}
	color := eval[string](t, ctx, `(() => { const tr = [...document.querySelectorAll('#revision table.attrs tr[data-attribute]')]
		.find(r => r.dataset.attribute === 'Color'); return tr ? tr.dataset.state : 'none'; })()`)
	if color != enrichment.OutcomeSuperseded {
		t.Errorf("Color's state %q, want superseded as the server says", color)
	}
	if got := text(t, ctx, `label[for=reason]`); !strings.Contains(got, "required") {
		t.Errorf("reason label %q: the server says a reason is required", got)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#reject")))
	waitFor(t, ctx, "the page to ask for a reason", `(document.querySelector('#decision-status')?.textContent ?? '').startsWith('Choose a reason')`)
	if got, _ := s.status(id); got != enrichment.StatusPending {
		t.Errorf("status %s: a rejection without the reason the server asks for was sent", got)
	}
}
