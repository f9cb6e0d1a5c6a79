package browser

import (
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
)

// TestVendorTextIsText: what a vendor proposes is shown as text wherever
// the page shows it (the queue, the diff, its columns, the attributes, the
// competing proposals), never inserted as HTML: no element of theirs
// appears and none of their scripts runs.
func TestVendorTextIsText(t *testing.T) {
	s := newService(t)
	a := s.f.A
	name := `<img src=x onerror="window.__injected=1">Runner`
	id := s.submit(a, "both", proposal{"SKU-1", 90, enrichment.Fields{Name: ptr(name),
		Description: ptr(`<b>bold</b> <script>window.__injected=2</script> and more`),
		Attributes:  &[]enrichment.StoredAttribute{{Attribute: `<i>Colour</i>`, Detail: `<u onmouseover="window.__injected=3">Red</u>`}}}})[0]
	s.submit(a, "submit", proposal{"SKU-1", 70, enrichment.Fields{Name: ptr(`<svg onload="window.__injected=4"></svg>`)}})
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	waitFor(t, ctx, "the proposals together", `document.querySelectorAll('.choice').length > 0`)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('.cols-toggle').forEach(b => b.click())`))
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll('body b, body i, body u, body script, body img:not(#product-context img), [onerror], [onload], [onmouseover]')]
		.map(e => e.outerHTML.slice(0, 60))`); len(got) > 0 {
		t.Errorf("vendor HTML became elements: %q", got)
	}
	if eval[bool](t, ctx, `'__injected' in window`) {
		t.Error("a vendor's script ran")
	}
	body := eval[string](t, ctx, `document.body.innerText`)
	for _, literal := range []string{name, "<b>bold</b>", "<i>Colour</i>", `<svg onload="window.__injected=4"></svg>`} {
		if !strings.Contains(body, literal) {
			t.Errorf("%q is not shown as text", literal)
		}
	}
}

// TestWordDiffReadsOldThenNew: a word replaced reads "old new" in the
// diff's text (innerText, as copying and screen readers take it), not
// "oldnew": in a field's diff and in an attribute's.
func TestWordDiffReadsOldThenNew(t *testing.T) {
	s := newService(t)
	a := s.f.A
	id := s.submit(a, "both", proposal{"SKU-M-RED", 90, enrichment.Fields{Name: ptr("Trail Anthracite"),
		Attributes: &[]enrichment.StoredAttribute{{Attribute: "Color", Detail: "Crimson"}}}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")
	was := s.product(a, "SKU-M-RED").GetString("name")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	name := eval[string](t, ctx, `document.querySelector('[data-field=name] .inline .val').innerText`)
	if marks := eval[string](t, ctx, `[...document.querySelectorAll('[data-field=name] .inline :is(del, ins)')].map(e => e.textContent).join('|')`); marks == "" {
		t.Fatalf("no word of the name is marked (%q → %q)", was, name)
	}
	del := eval[string](t, ctx, `document.querySelector('[data-field=name] .inline del')?.textContent ?? ''`)
	if ins := eval[string](t, ctx, `document.querySelector('[data-field=name] .inline ins').textContent`); !strings.Contains(name, del+" "+ins) {
		t.Errorf("name diff reads %q, want %q then %q apart", name, del, ins)
	}
	if got := eval[string](t, ctx, `document.querySelector('table.attrs tr[data-attribute=Color] .c-proposed').innerText`); got != "Red Crimson" {
		t.Errorf("attribute diff reads %q, want %q", got, "Red Crimson")
	}
}
