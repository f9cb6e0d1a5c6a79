package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
)

// TestCompletenessShown: the overview shows the catalog's completeness
// (the API's figure), its days and the gaps each client filled; a
// revision shows its product's completeness and what it lacks.
func TestCompletenessShown(t *testing.T) {
	s := newService(t)
	a := s.f.A
	// a description for SKU-M fills one of its four gaps
	ids := s.submit(a, "both", proposal{"SKU-M", 90, enrichment.Fields{Description: ptr("A trail shoe.")}},
		proposal{"SKU-1", 80, enrichment.Fields{Name: ptr("Runner Pro")}})
	s.decide(ids[0], "accepted")
	s.addReviewer(a.Org, "ann@alpha.example")
	mean, products, err := store.New(s.app).Catalog().MeanCompleteness(a.Org)
	if err != nil {
		t.Fatal(err)
	}

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-overview")))
	waitFor(t, ctx, "the completeness chart", `document.querySelector('#completeness-table tbody tr')`)
	tiles := text(t, ctx, "#summary")
	if want := fmt.Sprintf("%.1f %%\ncomplete, of %d products", float64(int(mean*10+0.5))/10, products); !strings.Contains(tiles, want) {
		t.Errorf("summary %q lacks %q", tiles, want)
	}
	if !strings.Contains(tiles, "\n1\ngaps filled by vendors") {
		t.Errorf("summary %q lacks the one gap filled", tiles)
	}
	client := store.FormatID(a.Clients["both"])
	if got := eval[string](t, ctx, `document.querySelector('#client-chart tr[data-client="`+client+`"] td[data-slots-filled]').dataset.slotsFilled`); got != "1" {
		t.Errorf("the client's gaps filled: %q, want 1", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#completeness-table tbody tr').length`); n != 1 {
		t.Errorf("%d days of completeness on a new data folder, want today alone", n)
	}

	openLink(t, ctx, s.url, ids[1])
	waitFor(t, ctx, "the product's completeness", `document.querySelector('#product-completeness')`)
	if got := text(t, ctx, "#product-completeness"); got != "75 % · missing Size" {
		t.Errorf("SKU-1's completeness shown as %q", got)
	}
}
