package browser

import (
	"context"
	"encoding/json/v2"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
)

// submitJSON posts a submission body with key, as a vendor does, and
// returns the revision ids of its items (""s for items not stored).
func (s *service) submitJSON(key, body string) []string {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url+"/api/enrichment/products/submissions", strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set(routes.KeyHeader, key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		s.t.Fatalf("submission: %d %s %v", res.StatusCode, raw, err)
	}
	var items []struct {
		RevisionID *int64 `json:"revisionId"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		s.t.Fatalf("submission answer %s: %v", raw, err)
	}
	ids := make([]string, len(items))
	for i, it := range items {
		if it.RevisionID != nil {
			ids[i] = store.FormatID(*it.RevisionID)
		}
	}
	return ids
}

// attrs are a product's (or proposal's) attributes as name → detail.
func attrs(t testing.TB, v any) map[string]string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var list []enrichment.StoredAttribute
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("attributes %s: %v", raw, err)
	}
	out := map[string]string{}
	for _, a := range list {
		out[a.Attribute] = a.Detail
	}
	return out
}

// jsonMap reads a JSON field of a record as a map of strings.
func jsonMap(t testing.TB, v any) map[string]string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	if string(raw) == "null" {
		return out
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return out
}

// attributesProposal proposes attributes of SKU-1 (Color Red, Material
// empty, Fit Wide now) as name, detail pairs.
func attributesProposal(pairs ...string) enrichment.Fields {
	var list []enrichment.StoredAttribute
	for i := 0; i+1 < len(pairs); i += 2 {
		list = append(list, enrichment.StoredAttribute{Attribute: pairs[i], Detail: pairs[i+1]})
	}
	return enrichment.Fields{Attributes: &list}
}

// attrBox is the tick box of the proposed attribute name.
func attrBox(name string) string {
	return `[...document.querySelectorAll('#revision .pick-attr')].find(b => b.dataset.attribute === ` + js(name) + `)`
}

// click clicks the element a JavaScript expression finds.
func click(t testing.TB, ctx context.Context, expr string) {
	t.Helper()
	if !eval[bool](t, ctx, `(() => { const el = `+expr+`; if (!el) return false; el.click(); return true; })()`) {
		t.Fatalf("nothing to click at %s", expr)
	}
}

// TestTickAttributesOneByOne: each proposed attribute has a tick box of its
// own; accepting the ticked ones applies those attributes only
// (approvedFields names them as attributes.NAME) and leaves the product's
// other attributes, and the unticked proposal, as they were.
func TestTickAttributesOneByOne(t *testing.T) {
	s := newService(t)
	a := s.f.A
	fields := attributesProposal("Color", "Blue", "Fit", "Narrow", "Sole", "Rubber")
	fields.Name = ptr("Runner Two")
	id := s.submit(a, "both", proposal{"SKU-1", 90, fields})[0]
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	if n := eval[int](t, ctx, `document.querySelectorAll('#revision .pick-attr').length`); n != 3 {
		t.Fatalf("%d attribute tick boxes, want 3", n)
	}
	click(t, ctx, attrBox("Fit"))
	if !eval[bool](t, ctx, `document.querySelector('#pick-attributes').indeterminate`) {
		t.Error("the attributes' tick box does not say that some are ticked")
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#accept-selected")))
	waitGone(t, ctx, id)
	approved := s.waitStatus(id, "accepted")
	slices.Sort(approved)
	if want := []string{"attributes", "name"}; !slices.Equal(approved, want) {
		t.Errorf("approvedFields %v, want %v", approved, want)
	}
	rev := s.record("revisions", id)
	if got := rev.GetStringSlice("approvedAttributes"); !slices.Equal(got, []string{"Color", "Sole"}) {
		t.Errorf("approvedAttributes %v, want [Color Sole]", got)
	}
	p := s.product(a, "SKU-1")
	got := attrs(t, p.Get("attributes"))
	if got["Color"] != "Blue" || got["Fit"] != "Wide" || got["Sole"] != "Rubber" || p.GetString("name") != "Runner Two" {
		t.Errorf("product after accepting Color and Sole: name %q, attributes %v", p.GetString("name"), got)
	}
}

// TestAttributeStates: a pending revision shows its superseded attribute
// as such, with nothing to tick; a decided one shows each attribute's
// state (applied, corrected, not applied with its reason).
func TestAttributeStates(t *testing.T) {
	s := newService(t)
	a := s.f.A
	older := s.submit(a, "both", proposal{"SKU-1", 70, attributesProposal("Color", "Blue", "Fit", "Narrow")})[0]
	newer := s.submit(a, "both", proposal{"SKU-1", 80, attributesProposal("Color", "Navy")})[0]
	decided := s.submit(a, "submit", proposal{"SKU-M", 60, attributesProposal("Color", "Black", "Material", "Mesh", "Sole", "Gum")})[0]
	rev := s.record("revisions", decided)
	rev.Set("status", "accepted")
	rev.Set("approvedFields", []string{"attributes.Color", "attributes.Material"})
	rev.Set("corrections", map[string]any{"attributes.Material": "Knit"})
	rev.Set("fieldReasons", map[string]any{"attributes.Sole": "inaccurate"})
	if err := s.app.Save(rev); err != nil {
		t.Fatalf("decide %s: %v", decided, err)
	}
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	openLink(t, ctx, s.url, older)
	waitRevision(t, ctx, older)
	do(t, ctx, chromedp.Click(chromedp.CSS("#show-alone"))) // the newer one competes with it
	waitFor(t, ctx, "the revision alone", `document.querySelector('#revision .pick-attr') !== null`)
	state := func(name string) string {
		return eval[string](t, ctx, `(() => { const tr = [...document.querySelectorAll('#revision table.attrs tr[data-attribute]')]
			.find(r => r.dataset.attribute === `+js(name)+`); return tr ? tr.dataset.state + ' | ' + tr.querySelector('th').textContent : 'none'; })()`)
	}
	if got := state("Color"); !strings.HasPrefix(got, "superseded | ") || !strings.Contains(got, "superseded") {
		t.Errorf("Color of the older revision: %q", got)
	}
	if eval[bool](t, ctx, attrBox("Color")+` !== undefined`) || !eval[bool](t, ctx, attrBox("Fit")+` !== undefined`) {
		t.Error("want a tick box for Fit and none for the superseded Color")
	}
	if got := s.record("revisions", older).GetStringSlice("supersededAttributes"); !slices.Equal(got, []string{"Color"}) {
		t.Fatalf("supersededAttributes of the older revision %v (newer %s)", got, newer)
	}
	screenshot(t, ctx, "attribute-superseded")

	openLink(t, ctx, s.url, decided)
	waitRevision(t, ctx, decided)
	for name, want := range map[string]string{"Color": "applied", "Material": "corrected", "Sole": "not_applied"} {
		if got := state(name); !strings.HasPrefix(got, want+" | ") {
			t.Errorf("%s: %q, want state %s", name, got, want)
		}
	}
	if got := state("Material"); !strings.Contains(got, "corrected to “Knit”") {
		t.Errorf("Material does not say what it was corrected to: %q", got)
	}
	if got := state("Sole"); !strings.Contains(got, "Inaccurate") && !strings.Contains(got, "inaccurate") {
		t.Errorf("Sole does not say why it was not applied: %q", got)
	}
	if got := text(t, ctx, `#revision .field-block[data-field=attributes] .field-head .badge`); got != "partly applied" {
		t.Errorf("attributes field badge %q, want partly applied", got)
	}
}
