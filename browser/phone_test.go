package browser

import (
	"context"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
)

// contrastJS lists what fails WCAG AA contrast on the page as it is shown,
// as axe's color-contrast rule checks it: every visible text against its
// composited background (4.5:1, 3:1 for large text), and the borders of
// inputs, selects and buttons and the focus ring against their
// surroundings (3:1). Disabled controls are exempt, as WCAG says.
const contrastJS = `(() => {
	const parse = (c) => {
		const m = String(c).match(/rgba?\(([^)]+)\)/);
		if (!m) return null;
		const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
		return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
	};
	const lum = ({ r, g, b }) => {
		const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
		return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
	};
	const ratio = (x, y) => { const [a, b] = [lum(x), lum(y)].sort((p, q) => q - p); return (a + 0.05) / (b + 0.05); };
	const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
		b: top.b * top.a + under.b * (1 - top.a), a: 1 });
	const background = (el) => {
		const layers = [];
		for (let e = el; e; e = e.parentElement) {
			const c = parse(getComputedStyle(e).backgroundColor);
			if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
		}
		return layers.reverse().reduce((bg, l) => over(l, bg), { r: 255, g: 255, b: 255, a: 1 });
	};
	const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
	const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '');
	const out = [];
	const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	const seen = new Set();
	while (walker.nextNode()) {
		const n = walker.currentNode;
		const el = n.parentElement;
		if (!n.textContent.trim() || seen.has(el)) continue;
		seen.add(el);
		if (!el.checkVisibility({ visibilityProperty: true }) || el.closest(':disabled, [aria-hidden=true], option, svg, dialog:not([open])')) continue;
		const cs = getComputedStyle(el);
		const bg = background(el);
		const fg = parse(cs.color);
		const r = ratio(over({ ...fg, a: fg.a * opacity(el) }, bg), bg);
		const size = parseFloat(cs.fontSize);
		const need = size >= 24 || (Number(cs.fontWeight) >= 700 && size >= 18.66) ? 3 : 4.5;
		if (r < need) out.push(name(el) + ' "' + n.textContent.trim().slice(0, 30) + '" ' + r.toFixed(2) + ' < ' + need);
	}
	for (const el of document.querySelectorAll('input:not([type=checkbox]):not([type=radio]), select, textarea, button')) {
		if (!el.checkVisibility({ visibilityProperty: true }) || el.disabled) continue;
		const cs = getComputedStyle(el);
		const border = parse(cs.borderTopColor);
		if (parseFloat(cs.borderTopWidth) === 0 || !border || border.a === 0) continue; // no border drawn
		const around = background(el.parentElement);
		const own = parse(cs.backgroundColor);
		const fill = own && own.a > 0 ? over(own, around) : around;
		const edge = Math.max(ratio(over(border, around), around), ratio(fill, around));
		if (edge < 3) out.push('border of ' + name(el) + ' ' + edge.toFixed(2) + ' < 3');
		const ring = parse(getComputedStyle(el).getPropertyValue('--focus').trim().replace(/^#(..)(..)(..)$/, (_, r, g, b) =>
			'rgb(' + parseInt(r, 16) + ',' + parseInt(g, 16) + ',' + parseInt(b, 16) + ')'));
		if (ring && ratio(ring, around) < 3) out.push('focus ring of ' + name(el) + ' ' + ratio(ring, around).toFixed(2) + ' < 3');
	}
	return out;
})()`

// brokenWordsJS lists the visible table headers whose words break across
// lines.
const brokenWordsJS = `[...document.querySelectorAll('th')].filter(th => th.checkVisibility()).flatMap(th => {
	const words = th.textContent.trim().split(/\s+/).filter(Boolean);
	const range = document.createRange();
	range.selectNodeContents(th);
	const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
	return lines.size > words.length ? [th.textContent.trim()] : [];
})`

// checkContrast fails the test for what contrastJS finds in the page as shown.
func checkContrast(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	for _, f := range eval[[]string](t, ctx, contrastJS) {
		t.Errorf("%s: contrast: %s", where, f)
	}
}

// checkFits fails the test when the page is wider than the screen or a
// table header breaks a word.
func checkFits(t *testing.T, ctx context.Context, where string, width int) {
	t.Helper()
	if w := eval[int](t, ctx, `Math.max(document.documentElement.scrollWidth, document.querySelector('.topbar').scrollWidth)`); w > width {
		t.Errorf("%s: the page is %d px wide on a %d px screen", where, w, width)
	}
	// note: each pane scrolls on its own, so each must fit too
	if over := eval[[]string](t, ctx, `['main', '.queue', '#revision-body', '.overview'].map(s => document.querySelector(s))
		.filter(e => e && e.checkVisibility() && e.scrollWidth > e.clientWidth + 1).map(e => e.className || e.id || e.tagName)`); len(over) > 0 {
		wide := eval[[]string](t, ctx, `[...document.querySelectorAll('body *')].filter(e => e.checkVisibility() &&
			e.getBoundingClientRect().right > innerWidth + 1).slice(-5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`)
		t.Errorf("%s: wider than the screen: %q (%q)", where, over, wide)
	}
	if broken := eval[[]string](t, ctx, brokenWordsJS); len(broken) > 0 {
		t.Errorf("%s: table headers break a word: %q", where, broken)
	}
}

// TestPhoneWidthAndContrast: on a phone (390×844) the page fits the screen,
// the list and the revision take it in turn, there is no keyboard legend,
// tables and bars stay readable; at both widths the text, borders and
// focus ring meet WCAG's contrast.
func TestPhoneWidthAndContrast(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro"), Description: ptr("A light and fast running shoe.")}},
		proposal{"SKU-M-RED", 60, enrichment.Fields{Attributes: &[]enrichment.StoredAttribute{
			{Attribute: "Color", Detail: "Crimson"}, {Attribute: "Lining", Detail: "Mesh"}}}},
		proposal{"BULK-0001", 85, enrichment.Fields{Name: ptr("Bulk one")}})
	rival := s.submit(a, "submit", proposal{"SKU-1", 70, enrichment.Fields{Name: ptr("Runner Classic")}})[0]
	s.decide(ids[2], "accepted")
	s.addReviewer(a.Org, "a.reviewer.with.a.long.address@alpha.example")

	// the desktop first
	ctx := newTab(t)
	signIn(t, ctx, s.url, "a.reviewer.with.a.long.address@alpha.example")
	waitRevision(t, ctx, ids[0])
	waitFor(t, ctx, "the proposals together", `document.querySelectorAll('.choice').length > 0`)
	checkContrast(t, ctx, "desktop, competing proposals")
	openRevision(t, ctx, ids[1])
	checkContrast(t, ctx, "desktop, attributes")
	checkFits(t, ctx, "desktop, attributes", viewportW)
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-overview")))
	waitFor(t, ctx, "the overview", `document.querySelector('#client-chart')`)
	checkContrast(t, ctx, "desktop, overview")
	checkFits(t, ctx, "desktop, overview", viewportW)

	// a phone
	do(t, ctx, chromedp.EmulateViewport(phoneW, phoneH, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate("about:blank"), chromedp.Navigate(s.url+"/#queue"))
	waitQueue(t, ctx)
	checkFits(t, ctx, "phone, queue", phoneW)
	checkContrast(t, ctx, "phone, queue")
	if eval[bool](t, ctx, `document.querySelector('#keys').checkVisibility()`) {
		t.Error("the keyboard legend takes room on a phone")
	}
	if eval[bool](t, ctx, `document.querySelector('#revision').checkVisibility()`) {
		t.Error("list and revision side by side on a phone")
	}
	if !eval[bool](t, ctx, `(() => { const r = document.querySelector('#sign-out').getBoundingClientRect(); return r.right <= innerWidth && r.width > 0; })()`) {
		t.Error("Sign out is off the screen")
	}
	screenshot(t, ctx, "phone-queue")

	// the list, then a revision on the whole screen, and back
	openRevision(t, ctx, ids[1])
	waitFor(t, ctx, "the revision on the screen", `document.querySelector('#revision').checkVisibility() && !document.querySelector('.queue').checkVisibility()`)
	checkFits(t, ctx, "phone, attributes", phoneW)
	checkContrast(t, ctx, "phone, attributes")
	screenshot(t, ctx, "phone-revision")
	do(t, ctx, chromedp.Click(chromedp.CSS(".rev-head .back")))
	waitFor(t, ctx, "the list again", `document.querySelector('.queue').checkVisibility()`)
	openRevision(t, ctx, rival)
	waitFor(t, ctx, "the proposals together", `document.querySelectorAll('.choice').length > 0`)
	checkFits(t, ctx, "phone, competing proposals", phoneW)
	screenshot(t, ctx, "phone-compete")

	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-overview")))
	waitFor(t, ctx, "the overview", `document.querySelector('#client-chart')`)
	checkFits(t, ctx, "phone, overview", phoneW)
	checkContrast(t, ctx, "phone, overview")
	// note: the bars of the columns a phone leaves out (.opt) are not shown
	bars := eval[[]float64](t, ctx, `[...document.querySelectorAll('#client-chart .bar, #band-chart .bar')]
		.filter(b => b.offsetParent !== null).map(b => b.getBoundingClientRect().width)`)
	for _, w := range bars {
		if w < 24 {
			t.Errorf("overview bars %v px wide on a phone", bars)
			break
		}
	}
	screenshot(t, ctx, "phone-overview")
	if !eval[bool](t, ctx, `(() => { const a = document.querySelector('#who-name').getBoundingClientRect(),
		b = document.querySelector('#sign-out').getBoundingClientRect(); return b.height < 2 * a.height && Math.abs(a.top - b.top) < a.height; })()`) {
		t.Error("the address and Sign out do not sit on one line")
	}
}
