package browser

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
)

// TestLongDescription: a 1,200-character description with one word
// changed and a sentence added shows as one diff with the unchanged
// stretches folded; the columns come on demand, "now" only when it differs
// from the value when proposed.
func TestLongDescription(t *testing.T) {
	s := newService(t)
	a := s.f.A
	var sentences []string
	for i := range 21 {
		sentences = append(sentences, fmt.Sprintf("Sentence %d of the long text, on the sole and the upper.", i+1))
	}
	long := strings.Join(sentences, " ")
	if len(long) < 1000 || len(long) > 1300 {
		t.Fatalf("the description has %d characters", len(long))
	}
	product := s.product(a, "BULK-0001")
	product.Set("description", long)
	if err := s.app.Save(product); err != nil {
		t.Fatal(err)
	}
	proposed := strings.Replace(long, "Sentence 9 ", "Phrase 9 ", 1) + " Made to last."
	id := s.submit(a, "both", proposal{"BULK-0001", 80, enrichment.Fields{Description: ptr(proposed)}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	block := "[data-field=description]"
	shown := eval[string](t, ctx, `document.querySelector('`+block+` .inline .val').innerText`)
	if len(shown) > 600 {
		t.Errorf("%d characters shown of %d: the unchanged stretches are not folded", len(shown), len(proposed))
	}
	marks := eval[[]string](t, ctx, `[...document.querySelectorAll('`+block+` .inline :is(ins, del)')].map(e => e.tagName + ' ' + e.textContent.trim())`)
	if want := []string{"DEL Sentence", "INS Phrase", "INS . Made to last"}; !slices.Equal(marks, want) {
		t.Errorf("marks %q, want %q", marks, want)
	}
	folds := eval[[]string](t, ctx, `[...document.querySelectorAll('`+block+` .fold-button')].map(b => b.textContent)`)
	if len(folds) != 2 || !strings.HasSuffix(folds[0], " unchanged characters …") {
		t.Errorf("folds %q", folds)
	}
	if eval[bool](t, ctx, `document.querySelector('`+block+` .cols').checkVisibility()`) {
		t.Error("the columns are shown before asking")
	}
	screenshot(t, ctx, "diff-long")
	do(t, ctx, chromedp.Click(chromedp.CSS(block+" .fold-button")))
	if got := eval[int](t, ctx, `document.querySelector('`+block+` .inline .val').innerText.length`); got <= len(shown) {
		t.Errorf("unfolding shows %d characters, before %d", got, len(shown))
	}
	// columns on demand: now equals when proposed, so two columns
	do(t, ctx, chromedp.Click(chromedp.CSS(block+" .cols-toggle")))
	columns := func() []string {
		return eval[[]string](t, ctx, `[...document.querySelectorAll('`+block+` .cols .col h4')].map(e => e.textContent)`)
	}
	if got := columns(); !slices.Equal(got, []string{"Now (= when proposed)", "Proposed"}) {
		t.Errorf("columns %v", got)
	}

	// the product changed since: three columns
	product = s.product(a, "BULK-0001")
	product.Set("description", long+" Edited since.")
	if err := s.app.Save(product); err != nil {
		t.Fatal(err)
	}
	openLink(t, ctx, s.url, id)
	waitRevision(t, ctx, id)
	do(t, ctx, chromedp.Click(chromedp.CSS(block+" .cols-toggle")))
	if got := columns(); !slices.Equal(got, []string{"Now", "When proposed", "Proposed"}) {
		t.Errorf("columns of a changed product %v", got)
	}
}

// TestRewrittenDescriptionInColumns: a description rewritten (at least 30
// words, half of them or more changed) opens in columns, before and after
// side by side, saying why; the one diff is a click away. A name with one
// word changed stays one diff.
func TestRewrittenDescriptionInColumns(t *testing.T) {
	s := newService(t)
	a := s.f.A
	product := s.product(a, "BULK-0001")
	product.Set("description", "A sturdy bottle of brushed steel that keeps drinks cold for a whole day and hot for half of one; "+
		"the lid screws on tight, the loop carries it on a finger, and the base is wide enough to stand on a car seat without tipping over.")
	if err := s.app.Save(product); err != nil {
		t.Fatal(err)
	}
	rewritten := "Double-walled stainless flask: cold drinks stay cold 24 hours, hot ones 12. A leak-proof screw cap with a carry loop, " +
		"a powder-coated grip that does not sweat, and a broad foot so it stays upright in cup holders, on desks and in the back of a car."
	id := s.submit(a, "both", proposal{"BULK-0001", 80, enrichment.Fields{Description: ptr(rewritten), Name: ptr("Bulk item one, steel")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	block := "[data-field=description]"
	visible := func(sel string) bool {
		return eval[bool](t, ctx, `document.querySelector(`+js(sel)+`).checkVisibility()`)
	}
	if !visible(block+" .cols") || visible(block+" .inline") {
		t.Fatal("the rewritten description is not shown in columns at first")
	}
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll('`+block+` .cols .col h4')].map(e => e.textContent)`); !slices.Equal(got, []string{"Now (= when proposed)", "Proposed"}) {
		t.Errorf("columns %v", got)
	}
	if got := text(t, ctx, block+" .toggles"); !strings.Contains(got, "% of the words changed") || !strings.Contains(got, "Show as one diff") {
		t.Errorf("the toggle line %q does not say why nor offer the one diff", got)
	}
	if !visible("[data-field=name] .inline") || visible("[data-field=name] .cols") {
		t.Error("a name with one word changed is not shown as one diff")
	}
	screenshot(t, ctx, "diff-rewritten")
	do(t, ctx, chromedp.Click(chromedp.CSS(block+" .cols-toggle")))
	if !visible(block+" .inline") || visible(block+" .cols") {
		t.Error("the one diff does not come on demand")
	}
}
