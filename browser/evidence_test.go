package browser

import (
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
)

// TestReasonPerField: a field and an attribute left unticked each get a
// reason of their own, sent as fieldReasons with the partial approval;
// on a rejection, the reasons chosen beside the fields go too.
func TestReasonPerField(t *testing.T) {
	s := newService(t)
	a := s.f.A
	fields := attributesProposal("Color", "Blue", "Fit", "Narrow")
	fields.Name = ptr("Runner Two")
	fields.Description = ptr("Made of cardboard.")
	ids := s.submit(a, "both",
		proposal{"SKU-1", 90, fields},
		proposal{"BULK-0001", 80, enrichment.Fields{Name: ptr("One"), Description: ptr("Uno.")}})
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	if eval[bool](t, ctx, `document.querySelector('#field-reason-description').checkVisibility()`) {
		t.Error("a reason picker is shown for a field that is ticked")
	}
	press(t, ctx, "2") // description is the second field: unticked by its key
	waitFor(t, ctx, "the description's reason picker", `document.querySelector('#field-reason-description').checkVisibility()`)
	pick(t, ctx, "#field-reason-description", "inaccurate")
	click(t, ctx, attrBox("Fit"))
	fit := eval[string](t, ctx, attrBox("Fit")+`.closest('tr').nextElementSibling.querySelector('select.field-reason').id`)
	pick(t, ctx, "#"+fit, "off_brand")
	do(t, ctx, chromedp.Click(chromedp.CSS("#accept-selected")))
	waitGone(t, ctx, ids[0])
	approved := s.waitStatus(ids[0], "accepted")
	slices.Sort(approved)
	if !slices.Equal(approved, []string{"attributes", "name"}) {
		t.Errorf("approvedFields %v", approved)
	}
	got := jsonMap(t, s.record("revisions", ids[0]).Get("fieldReasons"))
	if len(got) != 2 || got["description"] != "inaccurate" || got["attributes.Fit"] != "off_brand" {
		t.Errorf("fieldReasons %v", got)
	}
	if p := s.product(a, "SKU-1"); p.GetString("description") != "A light running shoe." || attrs(t, p.Get("attributes"))["Fit"] != "Wide" {
		t.Errorf("product: description %q, attributes %v", p.GetString("description"), attrs(t, p.Get("attributes")))
	}

	// a rejection: the reason beside the name goes with it
	waitRevision(t, ctx, ids[1])
	press(t, ctx, "1")
	pick(t, ctx, "#field-reason-name", "duplicate")
	press(t, ctx, "r")
	s.waitStatus(ids[1], "rejected")
	if got := jsonMap(t, s.record("revisions", ids[1]).Get("fieldReasons")); len(got) != 1 || got["name"] != "duplicate" {
		t.Errorf("fieldReasons of the rejection %v", got)
	}
}

// TestRequireReasonTakesAReasonPerField: where the organization requires
// a reason, a partial approval with neither is held back and the reason
// asked for; a reason beside the unticked field is enough.
func TestRequireReasonTakesAReasonPerField(t *testing.T) {
	s := newService(t)
	a := s.f.A
	org := s.record("organizations", string(a.Org))
	org.Set("requireReason", true)
	if err := s.app.Save(org); err != nil {
		t.Fatal(err)
	}
	id := s.submit(a, "both", proposal{"SKU-1", 90, enrichment.Fields{Name: ptr("Runner Two"), Description: ptr("Cardboard.")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	do(t, ctx, chromedp.Click(chromedp.CSS("#pick-description")), chromedp.Click(chromedp.CSS("#accept-selected")))
	waitFor(t, ctx, "the reason asked for", `/^Choose a reason/.test(document.querySelector('#decision-status').textContent)`)
	if got, _ := s.status(id); got != "pending" || s.statuses.requests("PATCH /api/collections/revisions") != 0 {
		t.Fatalf("revision %s is %s; a decision was sent without a reason", id, got)
	}
	pick(t, ctx, "#field-reason-description", "low_quality")
	do(t, ctx, chromedp.Click(chromedp.CSS("#accept-selected")))
	s.waitStatus(id, "accepted")
	r := s.record("revisions", id)
	if got := jsonMap(t, r.Get("fieldReasons")); got["description"] != "low_quality" || r.GetString("reason") != "" {
		t.Errorf("fieldReasons %v, reason %q", got, r.GetString("reason"))
	}
}

// TestIssuesAndEvidence: what the checks found and the vendor's sources
// are shown beside the field they concern, the model with its version in
// the header; a source links out in a new tab, telling the site nothing.
func TestIssuesAndEvidence(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submitJSON(a.Keys["both"], `{"model": {"name": "catalog-writer", "version": "2024-05"}, "items": [
		{"sku": "SKU-1", "description": "Light, with a rubber sole.",
		 "attributes": [{"attribute": "color", "detail": "Blue"}, {"attribute": "Size", "detail": "43 EU"}],
		 "sources": [{"field": "description", "url": "https://maker.example/runner?ref=x", "quote": "a rubber sole"},
		             {"field": "attributes.color", "url": "https://shop.example/runner-blue"},
		             {"field": "name", "url": "https://maker.example/"}]}]}`)
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	textOf := func(sel string) string {
		return eval[string](t, ctx, `document.querySelector(`+js(sel)+`)?.textContent ?? 'none'`)
	}
	if got := textOf("#rev-model"); got != "Made by model catalog-writer version 2024-05" {
		t.Errorf("model %q", got)
	}
	link := eval[[]string](t, ctx, `(() => { const a = document.querySelector('#sources-description a');
		return a ? [a.href, a.rel, a.target, a.textContent, a.closest('li').querySelector('q')?.textContent ?? ''] : []; })()`)
	if !slices.Equal(link, []string{"https://maker.example/runner?ref=x", "noopener noreferrer", "_blank", "maker.example/runner", "a rubber sole"}) {
		t.Errorf("description's source %v", link)
	}
	if got := textOf("#sources-attributes"); !strings.Contains(got, "Color: shop.example/runner-blue") {
		t.Errorf("attributes' sources %q", got)
	}
	issues := textOf("#issues-attributes")
	if !strings.Contains(issues, "Renamed") || !strings.Contains(issues, "without the unit") {
		t.Errorf("attributes' issues %q", issues)
	}
	// the source of a field not proposed was dropped, and said so apart
	if got := textOf("#issues-other"); !strings.Contains(got, "source 3:") {
		t.Errorf("other issues %q", got)
	}
	if eval[bool](t, ctx, `document.querySelector('#issues-description') !== null`) {
		t.Error("issues shown for the description, which has none")
	}
	screenshot(t, ctx, "evidence")
}

// TestEvidenceOfCompetingProposals: shown together, each proposal says its
// model, its sources for the field beside its value, and which of its
// attributes a newer proposal of its client superseded.
func TestEvidenceOfCompetingProposals(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ours := s.submitJSON(a.Keys["both"], `{"model": {"name": "writer", "version": "7"}, "items": [
		{"sku": "SKU-1", "description": "Light and quick.", "attributes": [{"attribute": "Color", "detail": "Blue"}, {"attribute": "Fit", "detail": "Narrow"}],
		 "sources": [{"field": "description", "url": "https://maker.example/quick", "quote": "quick"}]}]}`)[0]
	theirs := s.submitJSON(a.Keys["submit"], `{"items": [
		{"sku": "SKU-1", "description": "Light and slow.", "sources": [{"field": "description", "url": "https://other.example/slow"}]}]}`)[0]
	newer := s.submit(a, "both", proposal{"SKU-1", 10, attributesProposal("Color", "Navy")})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	openLink(t, ctx, s.url, ours)
	waitRevision(t, ctx, ours)
	waitFor(t, ctx, "the proposals together", `document.querySelectorAll('.choice').length > 0`)
	links := eval[[]string](t, ctx, `['`+ours+`', '`+theirs+`'].map(id => document.querySelector('#sources-description-' + id + ' a')?.href ?? 'none')`)
	if !slices.Equal(links, []string{"https://maker.example/quick", "https://other.example/slow"}) {
		t.Errorf("sources beside each proposal's description: %v", links)
	}
	who := eval[string](t, ctx, `document.querySelector('.choice[data-field=description] .option[data-revision="`+ours+`"] .who').textContent`)
	if !strings.HasSuffix(who, "· model writer 7") {
		t.Errorf("who of our proposal %q", who)
	}
	color := eval[string](t, ctx, `document.querySelector('.choice[data-field=attributes] .option[data-revision="`+ours+`"] li[data-attribute=Color]')?.textContent ?? 'none'`)
	if !strings.HasSuffix(color, "superseded") {
		t.Errorf("Color of the older proposal (superseded by %s): %q", newer, color)
	}
}
