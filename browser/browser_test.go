package browser

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
	"github.com/pocketbase/dbx"
)

// TestQueueDiffAndPartialAccept: a reviewer of A sees A's queue only, with
// the right counts per band; the filters work; a revision shows each field
// as one diff from the product now to the proposal, the columns on demand;
// attributes show their units and yes/no; accepting one field changes
// exactly that field.
func TestQueueDiffAndPartialAccept(t *testing.T) {
	s := newService(t)
	a, b := s.f.A, s.f.B
	shoes := templateID(t, s, a.Org, "Shoes")
	s.addOption(a.Org, shoes, "Weight", "NUMBER", "kg")
	s.addOption(a.Org, shoes, "Waterproof", "BOOLEAN", "")
	ids := s.submit(a, "both",
		proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro"), Slug: ptr("runner-pro"),
			Description: ptr("A light and fast running shoe for daily training.")}},
		proposal{"SKU-M-RED", 60, enrichment.Fields{Attributes: &[]enrichment.StoredAttribute{
			{Attribute: "Color", Detail: "Crimson"}, {Attribute: "Lining", Detail: "Mesh"},
			{Attribute: "Weight", Detail: "2.4"}, {Attribute: "Waterproof", Detail: "true"}}}},
		proposal{"SKU-NEW", 20, enrichment.Fields{Name: ptr("Newest edition")}},
		proposal{"SKU-M-BLUE", -1, enrichment.Fields{Files: &[]string{"https://docs.example/blue.pdf"}}},
		proposal{"BULK-0001", 85, enrichment.Fields{Name: ptr("Bulk item one")}},
	)
	runner, crimson, newest, blue, bulk := ids[0], ids[1], ids[2], ids[3], ids[4]
	theirs := s.submit(a, "submit", proposal{"BULK-0002", 70, enrichment.Fields{Name: ptr("Bulk item two")}},
		proposal{"SKU-M", 40, enrichment.Fields{Name: ptr("Trail Classic")}})
	other, classic := theirs[0], theirs[1]
	ofB := s.submit(b, "both",
		proposal{"SKU-1", 95, enrichment.Fields{Name: ptr("Beta drill pro")}},
		proposal{"B-ONLY", 50, enrichment.Fields{Description: ptr("Only in B")}})
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")

	// A's queue only, by confidence, highest first (no confidence last)
	want := []string{runner, bulk, other, crimson, classic, newest, blue}
	if got := queueIDs(t, ctx); !slices.Equal(got, want) {
		t.Fatalf("queue %v, want %v (B's are %v)", got, want, ofB)
	}
	if skus := queueSKUs(t, ctx); slices.Contains(skus, "B-ONLY") {
		t.Errorf("B's SKU in A's queue: %v", skus)
	}
	wantCounts := map[string]string{"all": "7", "80-100": "2", "50-79": "2", "0-49": "2", "": "1"}
	if got := bandCounts(t, ctx); !maps.Equal(got, wantCounts) {
		t.Errorf("band counts %v, want %v", got, wantCounts)
	}
	waitRevision(t, ctx, runner) // the first is opened at once
	facts := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('#product-context dt')].map(d => [d.textContent, d.nextElementSibling.textContent]))`)
	if want := map[string]string{"Brand": "Acme", "Categories": "Shoes › Running", "Template": "Shoes",
		"Completeness": "75 % · missing Size"}; !maps.Equal(facts, want) {
		t.Errorf("product context %v, want %v", facts, want)
	}
	waitFor(t, ctx, "the product's image", `document.querySelector('#product-context img.thumb')?.naturalWidth === 64`)
	if eval[bool](t, ctx, `document.querySelector('#product-context a.dashboard') !== null`) {
		t.Error("a reviewer is offered the dashboard, which only superusers may use")
	}
	screenshot(t, ctx, "queue")

	// filters: band, client, template, SKU
	filters := []struct {
		name   string
		action func()
		want   []string
	}{
		{"band 50-79", func() { do(t, ctx, chromedp.Click(chromedp.CSS(`#bands .band[data-band="50-79"]`))) }, []string{other, crimson}},
		{"band none", func() { do(t, ctx, chromedp.Click(chromedp.CSS(`#bands .band[data-band=""]`))) }, []string{blue}},
		{"all bands", func() { do(t, ctx, chromedp.Click(chromedp.CSS(`#bands .band[data-band="all"]`))) }, want},
		{"client submit", func() { pick(t, ctx, "#f-client", store.FormatID(a.Clients["submit"])) }, []string{other, classic}},
		{"all clients", func() { pick(t, ctx, "#f-client", "") }, want},
		{"template Shoes", func() { pick(t, ctx, "#f-template", shoes) }, []string{runner, crimson, classic, blue}},
		{"SKU bulk", func() {
			pick(t, ctx, "#f-template", "")
			do(t, ctx, chromedp.SendKeys(chromedp.CSS("#f-sku"), "bulk"))
		}, []string{bulk, other}},
		{"sorted oldest first", func() {
			do(t, ctx, chromedp.Evaluate[chromedp.Void](`(() => { const i = document.querySelector('#f-sku'); i.value = ''; i.dispatchEvent(new Event('input')); })()`))
			pick(t, ctx, "#f-sort", "age-desc")
		}, []string{runner, crimson, newest, blue, bulk, other, classic}},
	}
	for _, f := range filters {
		f.action()
		waitFor(t, ctx, f.name, queueIdle+` && [...document.querySelectorAll('#queue-list .item')].map(e => e.dataset.id).join() === `+js(strings.Join(f.want, ",")))
	}
	pick(t, ctx, "#f-sort", "confidence-desc")
	waitFor(t, ctx, "sorted by confidence", queueIdle+` && document.querySelector('#queue-list .item')?.dataset.id === `+js(runner))

	// one diff per field, from the product now to the proposal
	openRevision(t, ctx, runner)
	checks := map[string]string{
		"[data-field=name] .inline .val":        "Runner Pro",
		"[data-field=name] .inline ins":         "Pro",
		"[data-field=slug] .inline ins":         "-pro",
		"[data-field=description] .inline .val": "A light and fast running shoe for daily training.",
	}
	for sel, want := range checks {
		if got := text(t, ctx, sel); got != want {
			t.Errorf("%s: %q, want %q", sel, got, want)
		}
	}
	marked := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-field=description] .inline :is(ins, del)')].map(e => e.tagName + ' ' + e.textContent.trim())`)
	if want := []string{"INS and fast", "INS for daily training"}; !slices.Equal(marked, want) {
		t.Errorf("description marks %q, want %q", marked, want)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#rev-warning, .cols:not([hidden])').length`); n != 0 {
		t.Errorf("a warning or columns shown for an unchanged product")
	}
	// the columns on demand: "now" is "when proposed" here, so it is one column
	do(t, ctx, chromedp.Click(chromedp.CSS("[data-field=name] .cols-toggle")))
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll('[data-field=name] .cols .col h4')].map(e => e.textContent)`); !slices.Equal(got, []string{"Now (= when proposed)", "Proposed"}) {
		t.Errorf("name columns %v", got)
	}
	if got := text(t, ctx, "[data-field=name] .cols .col.proposed ins"); got != "Pro" {
		t.Errorf("proposed column marks %q", got)
	}
	screenshot(t, ctx, "diff")

	// attributes: what accepting does to each, with units and yes/no
	openRevision(t, ctx, crimson)
	rows := eval[map[string][]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('table.attrs tr[data-attribute]')]
		.map(r => [r.dataset.attribute, [r.querySelector('.c-now').textContent, r.querySelector('.c-proposed').textContent, r.querySelector('.c-change').textContent]]))`)
	wantRows := map[string][]string{
		"Color":      {"Red", "Red Crimson", "changed"},
		"Lining":     {"—", "Mesh", "added"},
		"Weight":     {"—", "2.4 kg", "added"},
		"Waterproof": {"—", "Yes", "added"},
		"Size":       {"42 EU", "— not proposed", "kept, not in proposal"},
	}
	if !maps.EqualFunc(rows, wantRows, slices.Equal) {
		t.Errorf("attribute rows %v,\nwant %v", rows, wantRows)
	}
	// attributes the proposal leaves alone are folded away
	size := `document.querySelector('table.attrs tr[data-attribute=Size]')`
	if eval[bool](t, ctx, size+`.checkVisibility()`) {
		t.Error("an attribute not in the proposal is shown before asking")
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("table.attrs tr.more button")))
	waitFor(t, ctx, "the folded attributes", size+`.checkVisibility()`)
	// a band is written one way everywhere
	if got := text(t, ctx, "#rev-title + .meta"); !strings.Contains(got, "(50–79)") {
		t.Errorf("revision meta %q, want the band as 50–79", got)
	}
	if bad := eval[string](t, ctx, `(document.body.innerText.match(/(^|[\s(])(0-49|50-79|80-100)(?=$|[\s).,])/) || [''])[0]`); bad != "" {
		t.Errorf("a band written with a hyphen: %q", bad)
	}
	screenshot(t, ctx, "diff-attributes")

	// accept the name only
	openRevision(t, ctx, runner)
	before := s.product(a, "SKU-1")
	do(t, ctx,
		chromedp.Click(chromedp.CSS("#pick-slug")),
		chromedp.Click(chromedp.CSS("#pick-description")),
		chromedp.Click(chromedp.CSS("#accept-selected")))
	waitGone(t, ctx, runner)
	if fields := s.waitStatus(runner, "accepted"); !slices.Equal(fields, []string{"name"}) {
		t.Errorf("revision %s accepted %v, want [name]", runner, fields)
	}
	after := s.product(a, "SKU-1")
	if after.GetString("name") != "Runner Pro" {
		t.Errorf("name after accepting it: %q", after.GetString("name"))
	}
	if b, a := fieldsExcept(before, "name", "updated"), fieldsExcept(after, "name", "updated"); !maps.Equal(b, a) {
		t.Errorf("accepting the name changed more:\nbefore %v\nafter  %v", b, a)
	}
	waitFor(t, ctx, "the notice", `/accepted: name/.test(document.querySelector('#notice').textContent)`)
}

// pick chooses value in a select as a person would, firing its change event.
func pick(t *testing.T, ctx context.Context, sel, value string) {
	t.Helper()
	ok := eval[bool](t, ctx, `(() => {
		const el = document.querySelector(`+js(sel)+`);
		if (![...el.options].some(o => o.value === `+js(value)+`)) return false;
		el.value = `+js(value)+`;
		el.dispatchEvent(new Event('change', { bubbles: true }));
		return true;
	})()`)
	if !ok {
		t.Fatalf("%s has no option %q", sel, value)
	}
}

// templateID is the record id of org's attribute template name.
func templateID(t *testing.T, s *service, org enrichment.Org, name string) string {
	t.Helper()
	r, err := s.app.FindFirstRecordByFilter("attribute_templates", "organization = {:org} && name = {:name}",
		dbx.Params{"org": string(org), "name": name})
	if err != nil {
		t.Fatalf("template %s: %v", name, err)
	}
	return r.Id
}
