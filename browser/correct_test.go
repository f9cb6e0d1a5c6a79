package browser

import (
	"context"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// typeInto replaces the value of a text field and tells the page, as typing does.
func typeInto(t testing.TB, ctx context.Context, sel, value string) {
	t.Helper()
	if !eval[bool](t, ctx, `(() => { const el = document.querySelector(`+js(sel)+`); if (!el) return false;
		el.value = `+js(value)+`; el.dispatchEvent(new Event('input', { bubbles: true })); return true; })()`) {
		t.Fatalf("no %s", sel)
	}
}

// TestCorrectBeforeAccepting: the reviewer edits the proposed name; the
// diff then shows the corrected name against the product's name now, and
// accepting applies the corrected name, recorded in corrections.
func TestCorrectBeforeAccepting(t *testing.T) {
	s := newService(t)
	a := s.f.A
	id := s.submit(a, "both", proposal{"SKU-1", 90, enrichment.Fields{Name: ptr("Runer Pro"), Description: ptr("Fast.")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	do(t, ctx, chromedp.Click(chromedp.CSS(`.field-block[data-field=name] .edit-value`)))
	waitFor(t, ctx, "the editor", `document.activeElement?.id === 'correct-name' && document.activeElement.value === 'Runer Pro'`)
	typeInto(t, ctx, "#correct-name", "Runner Pro")
	inline := `document.querySelector('.field-block[data-field=name] .inline')`
	if got := eval[[]string](t, ctx, `[`+inline+`.querySelector('del')?.textContent, `+inline+`.querySelector('ins')?.textContent, `+inline+`.textContent]`); got[0] != "" || got[1] != "Pro" || got[2] != "Runner Pro" {
		// the product is named "Runner": the corrected name adds " Pro"
		t.Errorf("diff of the corrected name: del %q, ins %q, text %q", got[0], got[1], got[2])
	}
	if got := text(t, ctx, `.field-block[data-field=name] .corrected-note`); !strings.HasPrefix(got, "Corrected") {
		t.Errorf("note %q", got)
	}
	screenshot(t, ctx, "correction")
	press(t, ctx, kb.Escape) // out of the editor, then the page's key
	press(t, ctx, "a")
	waitGone(t, ctx, id)
	s.waitStatus(id, "accepted")
	p := s.product(a, "SKU-1")
	if p.GetString("name") != "Runner Pro" || p.GetString("description") != "Fast." {
		t.Errorf("product: name %q, description %q", p.GetString("name"), p.GetString("description"))
	}
	if got := jsonMap(t, s.record("revisions", id).Get("corrections")); len(got) != 1 || got["name"] != "Runner Pro" {
		t.Errorf("corrections %v", got)
	}
}

// TestCorrectAnAttribute: an attribute's detail edited in its row is
// applied instead of the proposal, as attributes.NAME in corrections; a
// NUMBER option's unit is removed as a submission's would be.
func TestCorrectAnAttribute(t *testing.T) {
	s := newService(t)
	a := s.f.A
	id := s.submit(a, "both", proposal{"SKU-1", 90, attributesProposal("Color", "Bleu", "Size", "44", "Fit", "Narrow")})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	row := func(name string) string {
		return `[...document.querySelectorAll('#revision table.attrs tr[data-attribute]')].find(r => r.dataset.attribute === ` + js(name) + `)`
	}
	click(t, ctx, row("Color")+`.querySelector('.edit-value')`)
	input := eval[string](t, ctx, row("Color")+`.nextElementSibling.querySelector('.correct-input').id`)
	typeInto(t, ctx, "#"+input, "Blue")
	if got := eval[string](t, ctx, row("Color")+`.querySelector('.c-proposed ins')?.textContent ?? ''`); got != "Blue" {
		t.Errorf("Color's diff shows %q inserted, want Blue against Red", got)
	}
	click(t, ctx, row("Size")+`.querySelector('.edit-value')`)
	typeInto(t, ctx, "#"+eval[string](t, ctx, row("Size")+`.nextElementSibling.querySelector('.correct-input').id`), "43 EU")
	click(t, ctx, attrBox("Fit"))
	screenshot(t, ctx, "correction-attribute")
	do(t, ctx, chromedp.Click(chromedp.CSS("#accept-selected")))
	waitGone(t, ctx, id)
	s.waitStatus(id, "accepted")
	got := attrs(t, s.product(a, "SKU-1").Get("attributes"))
	if got["Color"] != "Blue" || got["Size"] != "43" || got["Fit"] != "Wide" {
		t.Errorf("product attributes %v", got)
	}
	if c := jsonMap(t, s.record("revisions", id).Get("corrections")); len(c) != 2 || c["attributes.Color"] != "Blue" || c["attributes.Size"] != "43" {
		t.Errorf("corrections %v", c)
	}
}

// TestRefusedCorrectionBesideItsField: a corrected value the server
// refuses (a slug that is not one) brings the revision back with the
// server's words beside the slug, the edit kept; fixed, it is applied.
func TestRefusedCorrectionBesideItsField(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-1", 90, enrichment.Fields{Slug: ptr("runner-pro"), Name: ptr("Runner Pro")}},
		proposal{"BULK-0001", 80, enrichment.Fields{Name: ptr("One")}})
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	do(t, ctx, chromedp.Click(chromedp.CSS(`.field-block[data-field=slug] .edit-value`)))
	typeInto(t, ctx, "#correct-slug", "Runner Pro")
	do(t, ctx, chromedp.Click(chromedp.CSS("#accept-all")))
	waitFor(t, ctx, "the refusal beside the slug", `/^Refused: "slug" is not a slug/.test(document.querySelector('#correct-slug-error')?.textContent ?? '')`)
	waitRevision(t, ctx, ids[0])
	if got := eval[string](t, ctx, `document.querySelector('#correct-slug').value`); got != "Runner Pro" {
		t.Errorf("the edit was lost: %q", got)
	}
	if got, _ := s.status(ids[0]); got != "pending" {
		t.Fatalf("revision %s is %s after the refusal", ids[0], got)
	}
	screenshot(t, ctx, "correction-refused")
	typeInto(t, ctx, "#correct-slug", "runner-pro-2")
	if got := text(t, ctx, "#correct-slug-error"); got != "" {
		t.Errorf("the refusal stays after the edit: %q", got)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#accept-all")))
	s.waitStatus(ids[0], "accepted")
	if p := s.product(a, "SKU-1"); p.GetString("slug") != "runner-pro-2" || p.GetString("name") != "Runner Pro" {
		t.Errorf("product: slug %q, name %q", p.GetString("slug"), p.GetString("name"))
	}
}

// TestRefusedAttributeCorrection: an attribute corrected to what its
// NUMBER option refuses comes back refused beside that attribute's row.
func TestRefusedAttributeCorrection(t *testing.T) {
	s := newService(t)
	a := s.f.A
	id := s.submit(a, "both", proposal{"SKU-1", 90, attributesProposal("Size", "44", "Color", "Blue")})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	size := `[...document.querySelectorAll('#revision table.attrs tr[data-attribute]')].find(r => r.dataset.attribute === 'Size')`
	click(t, ctx, size+`.querySelector('.edit-value')`)
	input := eval[string](t, ctx, size+`.nextElementSibling.querySelector('.correct-input').id`)
	typeInto(t, ctx, "#"+input, "about 44")
	do(t, ctx, chromedp.Click(chromedp.CSS("#accept-all")))
	waitFor(t, ctx, "the refusal under Size", size+`?.nextElementSibling.querySelector('.correction-error')?.textContent.startsWith('Refused: "attributes.Size"')`)
	if got, _ := s.status(id); got != "pending" {
		t.Fatalf("revision %s is %s after the refusal", id, got)
	}
	if got := attrs(t, s.product(a, "SKU-1").Get("attributes")); got["Color"] != "Red" {
		t.Errorf("the refused decision changed the product: %v", got)
	}
}

// TestRefusedCorrectionOfACompetingProposal: a revision with a competing
// proposal, shown alone and corrected to what its yes/no option refuses
// ("perhaps"), comes back alone, not among its competitors, with the edit
// open and the server's words beside that attribute; the notice says them
// once.
func TestRefusedCorrectionOfACompetingProposal(t *testing.T) {
	s := newService(t)
	a := s.f.A
	s.addOption(a.Org, templateID(t, s, a.Org, "Shoes"), "Waterproof", "BOOLEAN", "")
	id := s.submit(a, "both", proposal{"SKU-1", 90, attributesProposal("Waterproof", "true", "Color", "Blue")})[0]
	rival := s.submit(a, "submit", proposal{"SKU-1", 70, enrichment.Fields{Name: ptr("Runner Classic")}})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	waitFor(t, ctx, "the proposals together", `document.querySelectorAll('#revision-body .choice').length === 2`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#show-alone")))
	waterproof := `[...document.querySelectorAll('#revision table.attrs tr[data-attribute]')].find(r => r.dataset.attribute === 'Waterproof')`
	waitFor(t, ctx, "the revision alone", waterproof)
	click(t, ctx, waterproof+`.querySelector('.edit-value')`)
	input := eval[string](t, ctx, waterproof+`.nextElementSibling.querySelector('.correct-input').id`)
	typeInto(t, ctx, "#"+input, "perhaps")
	do(t, ctx, chromedp.Click(chromedp.CSS("#accept-all")))

	refused := `"attributes.Waterproof" is not a boolean`
	waitFor(t, ctx, "the refusal beside Waterproof", `document.querySelector('#`+input+`-error')?.checkVisibility() &&
		document.querySelector('#`+input+`-error').textContent.startsWith('Refused: '+`+js(refused)+`)`)
	waitRevision(t, ctx, id)
	if n := eval[int](t, ctx, `document.querySelectorAll('#revision-body .compete').length`); n != 0 {
		t.Error("the refused revision came back among its competitors, its edit hidden")
	}
	if got := eval[[]any](t, ctx, `[document.querySelector('#`+input+`').value, document.querySelector('#`+input+`').checkVisibility()]`); got[0] != "perhaps" || got[1] != true {
		t.Errorf("the edit (value, shown) is %v, want perhaps, shown", got)
	}
	if n := eval[int](t, ctx, `document.querySelector('#notice').textContent.split(`+js(refused)+`).length - 1`); n != 1 {
		t.Errorf("the notice says the refusal %d times: %q", n, text(t, ctx, "#notice"))
	}
	for _, r := range []string{id, rival} {
		if got, _ := s.status(r); got != "pending" {
			t.Errorf("revision %s is %s after the refusal", r, got)
		}
	}
	screenshot(t, ctx, "correction-refused-competing")
}
