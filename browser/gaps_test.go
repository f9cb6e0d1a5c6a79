package browser

import (
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The gaps the walk named: density, zoom, bulk decisions of what the
// filters match, a phone's next and skip, the keys dialog, two axe rules
// and the page's description.

// TestQueueDensity: at 1440×900 the queue shows at least 14 revisions
// whole, without scrolling.
func TestQueueDensity(t *testing.T) {
	s := newService(t)
	email := seedPending(t, s, 30)
	ctx := newTab(t)
	signIn(t, ctx, s.url, email)
	n := eval[int](t, ctx, `(() => {
		const box = document.querySelector('.queue').getBoundingClientRect();
		const bottom = Math.min(box.bottom, innerHeight);
		return [...document.querySelectorAll('#queue-list .item')].filter(e => {
			const r = e.getBoundingClientRect();
			return r.top >= box.top && r.bottom <= bottom && r.height > 0;
		}).length;
	})()`)
	screenshot(t, ctx, "queue-density")
	if n < 14 {
		t.Errorf("%d revisions of the queue shown whole at 1440×900, want at least 14", n)
	}
}

// TestZoomTheImage: the product's image opens larger in a dialog, from the
// keyboard too; Escape closes it and the focus returns to the thumbnail.
func TestZoomTheImage(t *testing.T) {
	s := newService(t)
	id := s.submit(s.f.A, "both", names("SKU-1")...)[0]
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	waitFor(t, ctx, "the thumbnail", `document.querySelector('#product-context .zoom img.thumb')?.naturalWidth === 64`)
	do(t, ctx, chromedp.Focus(chromedp.CSS("#product-context .zoom")))
	press(t, ctx, kb.Enter)
	waitFor(t, ctx, "the zoomed image", `document.querySelector('#zoom').open && document.querySelector('#zoom-image').complete &&
		document.querySelector('#zoom-image').naturalWidth === 64`)
	if w := eval[float64](t, ctx, `document.querySelector('#zoom-image').getBoundingClientRect().width`); w < 4*64 {
		t.Errorf("the zoomed image is %v px wide", w)
	}
	if got := eval[string](t, ctx, `document.querySelector('#zoom-image').alt`); !strings.HasPrefix(got, "Image of ") {
		t.Errorf("zoomed image's alt %q", got)
	}
	screenshot(t, ctx, "zoom")
	press(t, ctx, kb.Escape)
	waitFor(t, ctx, "the dialog closed", `!document.querySelector('#zoom').open`)
	if !eval[bool](t, ctx, `document.activeElement.matches('#product-context .zoom')`) {
		t.Error("the focus does not return to the thumbnail")
	}
}

// TestBulkDecisionOfMatching: every pending revision the filters match,
// across pages, is rejected (or accepted) after a dialog listing their
// SKUs, in one request to the group decision route; the others stay.
func TestBulkDecisionOfMatching(t *testing.T) {
	s := newService(t)
	a := s.f.A
	bulk := s.submit(a, "both", names("BULK-0001", "BULK-0002", "BULK-0003")...)
	others := s.submit(a, "both", names("SKU-M-RED", "SKU-M-BLUE")...)
	s.addReviewer(a.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#f-sku"), "BULK"))
	waitFor(t, ctx, "the filtered queue", queueIdle+` && document.querySelectorAll('#queue-list .item').length === 3`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#match-reject")))
	waitFor(t, ctx, "the dialog", `document.querySelector('#confirm').open`)
	if got := text(t, ctx, "#confirm-text"); !strings.HasPrefix(got, "Reject 3 pending revisions matching the filters?") {
		t.Errorf("dialog %q", got)
	}
	listed := eval[[]string](t, ctx, `[...document.querySelectorAll('#confirm-details li')].map(li => li.textContent)`)
	want := []string{"BULK-0001 · #" + bulk[0], "BULK-0002 · #" + bulk[1], "BULK-0003 · #" + bulk[2]}
	if strings.Join(listed, "|") != strings.Join(want, "|") {
		t.Errorf("dialog lists %q, want %q", listed, want)
	}
	pick(t, ctx, "#confirm-reason", "other")
	before := s.statuses.requests("POST /api/enrichment/review/decisions")
	do(t, ctx, chromedp.Click(chromedp.CSS("#confirm-ok")))
	for _, id := range bulk {
		s.waitStatus(id, "rejected")
		if r := s.record("revisions", id); r.GetString("reason") != "other" {
			t.Errorf("revision %s rejected with reason %q", id, r.GetString("reason"))
		}
	}
	if n := waitRequests(s, "POST /api/enrichment/review/decisions", before+1) - before; n != 1 {
		t.Errorf("%d group decision requests, want 1", n)
	}
	if n := s.statuses.requests("PATCH /api/collections/revisions"); n != 0 {
		t.Errorf("%d single decisions sent", n)
	}
	for _, id := range others {
		if got, _ := s.status(id); got != "pending" {
			t.Errorf("revision %s outside the filter is %s", id, got)
		}
	}
	// accepted: the rest, with the filter cleared
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`(() => { const i = document.querySelector('#f-sku'); i.value = ''; i.dispatchEvent(new Event('input')); })()`))
	waitFor(t, ctx, "the rest", queueIdle+` && document.querySelectorAll('#queue-list .item').length === 2`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#match-accept")))
	waitFor(t, ctx, "the dialog", `document.querySelector('#confirm').open`)
	if got := text(t, ctx, "#confirm-text"); !strings.HasPrefix(got, "Accept 2 pending revisions matching the filters?") {
		t.Errorf("dialog %q", got)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#confirm-ok")))
	for _, id := range others {
		s.waitStatus(id, "accepted")
	}
	if n := waitRequests(s, "POST /api/enrichment/review/decisions", before+2) - before; n != 2 {
		t.Errorf("%d group decision requests for two bulk decisions", n)
	}
}

// waitRequests waits up to 5 s until the server counted want requests to
// prefix (it counts one once its answer is written, after the decision is
// stored), and returns how many it counted.
func waitRequests(s *service, prefix string, want int) int {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(25 * time.Millisecond) {
		if n := s.statuses.requests(prefix); n >= want {
			time.Sleep(100 * time.Millisecond) // note: one more would be counted by now
			return s.statuses.requests(prefix)
		}
	}
	return s.statuses.requests(prefix)
}

// TestPhoneNextAndSkip: on a phone, the revision has Previous and Skip
// (the next one, without deciding this one).
func TestPhoneNextAndSkip(t *testing.T) {
	s := newService(t)
	ids := s.submit(s.f.A, "both", names("BULK-0001", "BULK-0002", "BULK-0003")...)
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	do(t, ctx, chromedp.EmulateViewport(phoneW, phoneH, chromedp.EmulateMobile, chromedp.EmulateTouch))
	signIn(t, ctx, s.url, "ann@alpha.example")
	openRevision(t, ctx, ids[0])
	waitFor(t, ctx, "Skip on the screen", `document.querySelector('#phone-skip')?.checkVisibility()`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#phone-skip")))
	waitRevision(t, ctx, ids[1])
	do(t, ctx, chromedp.Click(chromedp.CSS("#phone-skip")))
	waitRevision(t, ctx, ids[2])
	do(t, ctx, chromedp.Click(chromedp.CSS("#phone-prev")))
	waitRevision(t, ctx, ids[1])
	if !eval[bool](t, ctx, `document.querySelector('#revision').checkVisibility()`) {
		t.Error("moving left the revision's screen")
	}
	for _, id := range ids {
		if got, _ := s.status(id); got != "pending" {
			t.Errorf("skipping decided revision %s: %s", id, got)
		}
	}
	// on the desktop they take no room: the keys do it
	do(t, ctx, chromedp.EmulateViewport(viewportW, viewportH))
	if eval[bool](t, ctx, `document.querySelector('#phone-skip').checkVisibility()`) {
		t.Error("Skip is shown on the desktop")
	}
}

// TestQuestionMarkShowsTheKeys: ? opens the dialog of every key; Escape
// closes it.
func TestQuestionMarkShowsTheKeys(t *testing.T) {
	s := newService(t)
	id := s.submit(s.f.A, "both", names("BULK-0001")...)[0]
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, id)
	press(t, ctx, "?")
	waitFor(t, ctx, "the keys", `document.querySelector('#shortcuts').open`)
	keys := text(t, ctx, "#shortcuts")
	for _, want := range []string{"next revision", "accept every field", "reject every one of them", "undo", "these keys"} {
		if !strings.Contains(keys, want) {
			t.Errorf("the keys dialog does not say %q", want)
		}
	}
	press(t, ctx, kb.Escape)
	waitFor(t, ctx, "the dialog closed", `!document.querySelector('#shortcuts').open`)
	// typed in a field, ? is text
	do(t, ctx, chromedp.Focus(chromedp.CSS("#f-sku")))
	press(t, ctx, "?")
	if eval[bool](t, ctx, `document.querySelector('#shortcuts').open`) {
		t.Error("? typed in the SKU filter opened the keys")
	}
}

// axeJS checks two of axe's rules on the page as shown:
// scrollable-region-focusable (a box that scrolls is in the Tab order or
// holds something that is) and heading-order (no heading level skipped
// on the way down).
const axeJS = `(() => {
	const out = [];
	const focusable = 'a[href], button:not(:disabled), input:not(:disabled), select, textarea, summary, [tabindex]:not([tabindex="-1"])';
	for (const el of document.querySelectorAll('body *')) {
		if (!el.checkVisibility()) continue;
		const cs = getComputedStyle(el);
		const scrolls = (/(auto|scroll)/.test(cs.overflowX) && el.scrollWidth > el.clientWidth + 1) ||
			(/(auto|scroll)/.test(cs.overflowY) && el.scrollHeight > el.clientHeight + 1);
		if (!scrolls) continue;
		if (el.matches(focusable) || [...el.querySelectorAll(focusable)].some(f => f.checkVisibility())) continue;
		out.push('scrollable-region-focusable: ' + el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + '.' + el.className);
	}
	let last = 0;
	for (const hd of document.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
		if (!hd.checkVisibility() && !hd.closest('.visually-hidden')) continue;
		const level = Number(hd.tagName[1]);
		if (last && level > last + 1) out.push('heading-order: h' + level + ' "' + hd.textContent.trim().slice(0, 40) + '" after h' + last);
		last = level;
	}
	return out;
})()`

// TestAxeScrollRegionsAndHeadings: the overview's tables that scroll
// sideways on a phone can be reached with the keyboard, and headings go
// down one level at a time, on the overview and in a revision shown in
// columns.
func TestAxeScrollRegionsAndHeadings(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both", proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro"), Description: ptr("A light shoe.")}},
		proposal{"BULK-0001", 85, enrichment.Fields{Name: ptr("Bulk one")}})
	s.submit(a, "submit", proposal{"BULK-0002", 40, enrichment.Fields{Name: ptr("Bulk two")}})
	s.decide(ids[1], "accepted")
	s.addReviewer(a.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('.cols-toggle').forEach(b => b.click())`))
	for _, f := range eval[[]string](t, ctx, axeJS) {
		t.Errorf("revision in columns: %s", f)
	}
	do(t, ctx, chromedp.EmulateViewport(phoneW, phoneH, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate("about:blank"), chromedp.Navigate(s.url+"/#overview"))
	waitFor(t, ctx, "the overview", `!!document.querySelector('#weekly-table')`)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('.overview details').forEach(d => d.open = true)`))
	if !eval[bool](t, ctx, `(() => { const t = document.querySelector('#weekly-table').parentElement; return t.scrollWidth > t.clientWidth; })()`) {
		t.Fatal("the weekly table does not scroll on a phone: the test checks nothing")
	}
	for _, f := range eval[[]string](t, ctx, axeJS) {
		t.Errorf("overview on a phone: %s", f)
	}
}

// TestMetaDescription: the page describes itself to search engines.
func TestMetaDescription(t *testing.T) {
	s := newService(t)
	ctx := newTab(t)
	do(t, ctx, chromedp.Navigate(s.url+"/"))
	got := eval[string](t, ctx, `document.querySelector('meta[name=description]')?.content ?? ''`)
	if len(got) < 50 || len(got) > 160 {
		t.Errorf("meta description %q: want 50 to 160 characters", got)
	}
}
