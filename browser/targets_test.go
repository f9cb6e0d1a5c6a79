package browser

import (
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
)

// smallTargetsJS lists the controls of the queue's pane smaller than 24×24
// px (WCAG 2.5.8, Lighthouse's target-size), as shown.
const smallTargetsJS = `[...document.querySelectorAll('.queue :is(button, a, input, select, summary)')]
	.filter(e => e.checkVisibility()).map(e => [e, e.getBoundingClientRect()])
	.filter(([, r]) => r.width < 24 || r.height < 24)
	.map(([e, r]) => (e.id || e.className || e.tagName) + ' ' + Math.round(r.width) + '×' + Math.round(r.height))`

// TestPhoneTargets: on a phone every control of the queue's pane is at
// least 24×24 px, so that a finger finds it (Lighthouse's target-size
// failed on "Accept all…" and "Reject all…").
func TestPhoneTargets(t *testing.T) {
	s := newService(t)
	s.submit(s.f.A, "both", proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}})
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.EmulateViewport(phoneW, phoneH, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate("about:blank"), chromedp.Navigate(s.url+"/#queue"))
	waitQueue(t, ctx)
	screenshot(t, ctx, "phone-targets")
	if small := eval[[]string](t, ctx, smallTargetsJS); len(small) > 0 {
		t.Errorf("controls smaller than 24×24 px on a phone: %q", small)
	}
}
