package browser

import (
	"context"
	"net/http"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
)

// clippedJS lists what the table sel cuts off on the screen: its region
// wider than the screen or scrolling sideways, a cell outside the region,
// a SKU broken over lines.
func clippedJS(sel string) string {
	return `(() => {
	const table = document.querySelector(` + js(sel) + `), region = table.closest('.table-scroll'), out = [];
	const box = region.getBoundingClientRect();
	if (box.right > innerWidth + 1 || box.left < -1) out.push('the region spans ' + Math.round(box.left) + '–' + Math.round(box.right) + ' px');
	if (region.scrollWidth > region.clientWidth + 1) out.push('the region scrolls sideways: ' + region.scrollWidth + ' px in ' + region.clientWidth);
	for (const cell of table.querySelectorAll('tbody :is(th, td)')) {
		const r = cell.getBoundingClientRect();
		if (cell.checkVisibility() && (r.left < box.left - 1 || r.right > box.right + 1)) out.push('cut off: ' + (cell.dataset.label || 'row') + ' ' + cell.textContent.trim().slice(0, 30));
	}
	for (const sku of table.querySelectorAll('.sku')) if (sku.getClientRects().length > 1) out.push('SKU ' + sku.textContent + ' broken over lines');
	return out;
})()`
}

// checkNotClipped fails the test for what clippedJS finds in table sel.
func checkNotClipped(t *testing.T, ctx context.Context, where, sel string) {
	t.Helper()
	for _, c := range eval[[]string](t, ctx, clippedJS(sel)) {
		t.Errorf("%s: %s", where, c)
	}
}

// TestDecidedAndPoliciesOnAPhone: at 390 px the decided revisions and the
// trust policies show every column (stacked rows, each cell named), with
// no sideways scrolling and no SKU broken inside; at desktop width they
// are tables with their headers.
func TestDecidedAndPoliciesOnAPhone(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-M-RED", 90, enrichment.Fields{Name: ptr("Trail Runner in red, the long edition")}},
		proposal{"BULK-0002", 80, enrichment.Fields{Name: ptr("Two")}})
	s.addReviewer(a.Org, "a.reviewer.with.a.long.address@alpha.example")
	token := s.token("a.reviewer.with.a.long.address@alpha.example")
	s.call(http.MethodPatch, "/api/collections/revisions/records/"+ids[1], token, `{"status":"rejected","reason":"duplicate"}`, http.StatusOK, nil)
	s.call(http.MethodPatch, "/api/collections/revisions/records/"+ids[0], token, `{"status":"accepted"}`, http.StatusOK, nil)
	s.save("trust_policies", map[string]any{"organization": string(a.Org), "apiClient": store.FormatID(a.Clients["both"]),
		"fields": []string{"name", "description"}, "minConfidence": 80, "targetPrecision": 0.95, "minReviewed": 200, "auditRate": 0.05, "enabled": true})

	ctx := newTab(t)
	signIn(t, ctx, s.url, "a.reviewer.with.a.long.address@alpha.example")
	for _, width := range []int{viewportW, phoneW} {
		if width == phoneW {
			do(t, ctx, chromedp.EmulateViewport(phoneW, phoneH, chromedp.EmulateMobile, chromedp.EmulateTouch))
		}
		do(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(s.url+"/#decided"))
		waitFor(t, ctx, "the decided revisions", `document.querySelectorAll('#decided-list tbody tr').length === 2`)
		checkNotClipped(t, ctx, "decided", "table.decided-table")
		if width == phoneW {
			checkFits(t, ctx, "phone, decided", phoneW)
			labels := eval[[]string](t, ctx, `[...document.querySelectorAll('#decided-list tbody tr:first-child td')].filter(td => td.checkVisibility())
				.map(td => getComputedStyle(td, '::before').content)`)
			if len(labels) < 6 || labels[0] != `"Decided: "` {
				t.Errorf("the stacked cells are named %q", labels)
			}
			screenshot(t, ctx, "phone-decided")
		} else if !eval[bool](t, ctx, `document.querySelector('table.decided-table thead').checkVisibility()`) {
			t.Error("the decided table has no header at desktop width")
		}
		do(t, ctx, chromedp.Navigate(s.url+"/#trust"))
		waitFor(t, ctx, "the policies", `document.querySelectorAll('table.policies tbody tr').length === 1`)
		checkNotClipped(t, ctx, "trust policies", "table.policies")
		if width == phoneW {
			checkFits(t, ctx, "phone, trust", phoneW)
			checkContrast(t, ctx, "phone, trust")
			screenshot(t, ctx, "phone-policies")
		}
	}
}
