package browser

import (
	"slices"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
)

// holdVocabularyJS, run before the page's scripts at each load, notes the
// first view's reads in the order the page asks them (window.__asked) and
// holds the vocabulary's request back until the queue is asked for (3 s
// at most), as a slow answer would.
const holdVocabularyJS = `if (location.protocol.startsWith('http')) {
	window.__asked = [];
	const real = window.fetch;
	let queueAsked;
	const queueSeen = new Promise((resolve) => { queueAsked = resolve; });
	const kinds = [['vocabulary', /review\/vocabulary/], ['queue', /review\/queue/], ['clients', /collections\/api_clients\//],
		['templates', /collections\/attribute_templates\//], ['sign-in check', /auth-refresh/], ['live updates', /\/api\/realtime/]];
	window.fetch = function (input, init) {
		const url = String(input instanceof Request ? input.url : input);
		const kind = kinds.find(([, re]) => re.test(url))?.[0];
		if (kind) window.__asked.push(kind);
		if (kind === 'queue') queueAsked();
		if (kind !== 'vocabulary') return real.call(this, input, init);
		return Promise.race([queueSeen, new Promise((resolve) => setTimeout(resolve, 3000))]).then(() => {
			window.__asked.push('vocabulary sent');
			return real.call(this, input, init);
		});
	};
}`

// TestFirstViewReadsAhead: at a load with a remembered sign-in, the page
// asks for the queue, the clients and the templates at once, beside the
// vocabulary and the check of the sign-in, not after them (the queue with
// the orders and page size the last vocabulary read named); the live
// updates start once the queue is drawn. The queue shown is the server's.
func TestFirstViewReadsAhead(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-M", 40, enrichment.Fields{Name: ptr("Trail Classic")}},
		proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}},
		proposal{"SKU-NEW", 75, enrichment.Fields{Name: ptr("Newest edition")}})
	byConfidence := []string{ids[1], ids[2], ids[0]}
	s.addReviewer(a.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	onEveryLoad(t, ctx, holdVocabularyJS)

	do(t, ctx, chromedp.Navigate(s.url+"/"))
	waitQueue(t, ctx)
	waitRevision(t, ctx, byConfidence[0])
	if got := queueIDs(t, ctx); !slices.Equal(got, byConfidence) {
		t.Errorf("queue %v, want %v", got, byConfidence)
	}
	waitFor(t, ctx, "the live updates", `window.__asked.includes('live updates')`)
	asked := eval[[]string](t, ctx, `window.__asked`)
	sent := slices.Index(asked, "vocabulary sent")
	for _, read := range []string{"queue", "clients", "templates", "sign-in check"} {
		if i := slices.Index(asked, read); i < 0 || i > sent {
			t.Errorf("%s asked for after the vocabulary's answer, not beside it: %v", read, asked)
		}
	}
	if slices.Index(asked, "live updates") < slices.Index(asked, "queue") {
		t.Errorf("live updates started before the queue was asked for: %v", asked)
	}
	// note: the stream's resource entry is listed some time after the page asked for it
	waitFor(t, ctx, "the live updates' request", `performance.getEntriesByType('resource').some((e) => /\/api\/realtime/.test(e.name))`)
	if !eval[bool](t, ctx, `(() => {
		const entry = (re) => performance.getEntriesByType('resource').find((e) => re.test(e.name));
		return entry(/\/api\/realtime/).startTime >= entry(/review\/queue/).responseEnd;
	})()`) {
		t.Error("the live updates started before the queue's answer")
	}

	// a vocabulary remembered from another server's version: the page asks
	// again with the one it reads now
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.setItem('enrichment.vocabulary',
		JSON.stringify({ sorts: [{ value: 'age-asc', label: 'Oldest first' }], limits: { queuePageSize: 2 } }))`),
		chromedp.Navigate(s.url+"/"))
	waitQueue(t, ctx)
	if got := queueIDs(t, ctx); !slices.Equal(got, byConfidence) {
		t.Errorf("with another vocabulary remembered, queue %v, want %v", got, byConfidence)
	}
	if got := eval[int](t, ctx, `JSON.parse(localStorage.getItem('enrichment.vocabulary')).limits.queuePageSize`); got != enrichment.QueuePageSize {
		t.Errorf("remembered page size %d, want the server's %d", got, enrichment.QueuePageSize)
	}
}

// TestDecisionKeepsTheListDrawn: a decision takes its revision off the
// list and leaves the other items as they were drawn (not drawn again);
// each still opens its own revision and selects itself, shift-clicks
// select the range between, and the counts follow.
func TestDecisionKeepsTheListDrawn(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}},
		proposal{"SKU-NEW", 75, enrichment.Fields{Name: ptr("Newest edition")}},
		proposal{"SKU-M", 60, enrichment.Fields{Name: ptr("Trail Classic")}},
		proposal{"SKU-M-RED", 40, enrichment.Fields{Name: ptr("Trail Crimson")}})
	s.addReviewer(a.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	waitRevision(t, ctx, ids[0])
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('#queue-list li').forEach((li) => { li.__drawn = true; })`))

	press(t, ctx, "a")
	waitRevision(t, ctx, ids[1])
	if got := queueIDs(t, ctx); !slices.Equal(got, ids[1:]) {
		t.Fatalf("queue %v after the decision, want %v", got, ids[1:])
	}
	if !eval[bool](t, ctx, `[...document.querySelectorAll('#queue-list li')].every((li) => li.__drawn)`) {
		t.Error("the list was drawn again for a decision")
	}
	if got := bandCounts(t, ctx)["all"]; got != "3" {
		t.Errorf("count of all %s after the decision, want 3", got)
	}
	s.waitStatus(ids[0], "accepted")

	// the items after the one that left open and select their own revision
	openRevision(t, ctx, ids[3])
	do(t, ctx, chromedp.Click(chromedp.CSS(`#queue-list .sel[data-id="`+ids[2]+`"]`)))
	waitFor(t, ctx, "one selected", `document.querySelector('#selection-count').textContent === '1 selected'`)
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll('#queue-list li.picked .item')].map((e) => e.dataset.id)`); !slices.Equal(got, []string{ids[2]}) {
		t.Errorf("selected %v, want %v", got, ids[2:3])
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('#queue-list .sel[data-id="`+ids[1]+`"]')
		.dispatchEvent(new MouseEvent('click', { bubbles: true, shiftKey: true }))`))
	waitFor(t, ctx, "a range selected", `document.querySelector('#selection-count').textContent === '2 selected'`)
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll('#queue-list li.picked .item')].map((e) => e.dataset.id)`); !slices.Equal(got, ids[1:3]) {
		t.Errorf("selected %v, want %v", got, ids[1:3])
	}
}

// holdRevisionJS, run before the page's scripts at each load, holds the
// request of a revision with its product back until attribute options
// are asked for (3 s at most), noting both in window.__asked.
const holdRevisionJS = `if (location.protocol.startsWith('http')) {
	window.__asked = [];
	const real = window.fetch;
	let optionsAsked;
	const optionsSeen = new Promise((resolve) => { optionsAsked = resolve; });
	window.fetch = function (input, init) {
		const url = String(input instanceof Request ? input.url : input);
		if (/collections\/attribute_options\//.test(url)) {
			window.__asked.push('options');
			optionsAsked();
		}
		if (!/collections\/revisions\/records\/\d+\?/.test(url)) return real.call(this, input, init);
		window.__asked.push('revision');
		return Promise.race([optionsSeen, new Promise((resolve) => setTimeout(resolve, 3000))]).then(() => {
			window.__asked.push('revision sent');
			return real.call(this, input, init);
		});
	};
}`

// TestOptionsReadBesideTheRevision: the queue names each product's
// template, and the page reads the template's attribute options beside
// the revision, not after its answer.
func TestOptionsReadBesideTheRevision(t *testing.T) {
	s, ctx, id := runnerProSignedIn(t)
	onEveryLoad(t, ctx, holdRevisionJS)
	do(t, ctx, chromedp.Navigate(s.url+"/"))
	waitQueue(t, ctx)
	waitRevision(t, ctx, id)
	asked := eval[[]string](t, ctx, `window.__asked`)
	if i := slices.Index(asked, "options"); i < 0 || i > slices.Index(asked, "revision sent") {
		t.Errorf("the options were asked for after the revision's answer, not beside it: %v", asked)
	}
}

// listOrderJS, run before the page's scripts at each load, notes in
// window.__order when the page asks for a revision ("revision ID") and
// when it starts drawing the queue's list ("list drawn", its first item).
const listOrderJS = `if (location.protocol.startsWith('http')) {
	window.__order = [];
	const real = window.fetch;
	window.fetch = function (input, init) {
		const id = String(input instanceof Request ? input.url : input).match(/collections\/revisions\/records\/(\d+)/)?.[1];
		if (id) window.__order.push('revision ' + id);
		return real.call(this, input, init);
	};
	const append = Element.prototype.append;
	Element.prototype.append = function (...nodes) {
		const result = append.apply(this, nodes);
		if (this.id === 'queue-list' && this.querySelector('.item') && !window.__order.includes('list drawn')) window.__order.push('list drawn');
		return result;
	};
}`

// TestFirstRevisionReadBeforeTheList: at a load, the first revision's
// reads leave as soon as the queue answers, before its list of up to 50 is
// drawn, rather than after (the drawing took 40-50 ms of a 0.4 s first
// load at 20,000 pending).
func TestFirstRevisionReadBeforeTheList(t *testing.T) {
	s := newService(t)
	a := s.f.A
	ids := s.submit(a, "both",
		proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}},
		proposal{"SKU-M", 60, enrichment.Fields{Name: ptr("Trail Classic")}})
	s.addReviewer(a.Org, "ann@alpha.example")
	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	onEveryLoad(t, ctx, listOrderJS)
	do(t, ctx, chromedp.Navigate(s.url+"/"))
	waitQueue(t, ctx)
	waitRevision(t, ctx, ids[0])
	order := eval[[]string](t, ctx, `window.__order`)
	read, drawn := slices.Index(order, "revision "+ids[0]), slices.Index(order, "list drawn")
	if read < 0 || drawn < 0 || read > drawn {
		t.Errorf("the first revision was asked for after the list was drawn, not before: %v", order)
	}
	if n := slices.Index(order[read+1:], "revision "+ids[0]); n >= 0 {
		t.Errorf("the first revision was read twice: %v", order)
	}
}

// layoutShiftJS resolves to the layout shifts the page recorded since it
// was loaded, as "value at element" strings (none: empty), 1 s after asked.
const layoutShiftJS = `new Promise((resolve) => {
	const shifts = [];
	new PerformanceObserver((list) => shifts.push(...list.getEntries().map((e) =>
		e.value.toFixed(3) + ' at ' + Math.round(e.startTime) + ' ms: ' + e.sources.map((s) => (s.node?.id || s.node?.className || s.node?.nodeName) +
			' ' + [s.previousRect, s.currentRect].map((r) => [r.x, r.y, r.width, r.height].map(Math.round).join(',')).join(' to ')).join('; ')))).observe({ type: 'layout-shift', buffered: true });
	setTimeout(() => resolve(shifts), 1000);
})`

// TestNoLayoutShiftAtReload: on a phone, a reload with a sign-in
// remembered draws the header as it will be from the start (its tabs and
// who is signed in), so nothing moves when the queue comes (Lighthouse's
// layout shift was 0.066 for the header's growth).
func TestNoLayoutShiftAtReload(t *testing.T) {
	s := newService(t)
	a := s.f.A
	s.submit(a, "both",
		proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}},
		proposal{"SKU-M", 60, enrichment.Fields{Name: ptr("Trail Classic")}})
	s.addReviewer(a.Org, "ann@alpha.example")
	ctx := newTab(t)
	do(t, ctx, chromedp.EmulateViewport(phoneW, phoneH, chromedp.EmulateMobile, chromedp.EmulateTouch))
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(s.url+"/"))
	waitQueue(t, ctx)
	shifts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](layoutShiftJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(shifts) > 0 {
		t.Errorf("layout shifts at a reload: %v", shifts)
	}
}

// TestOwnClaimKeepsTheListDrawn: the claim the page takes on the revision
// it shows, and each renewal, change nothing the list shows, so a reload of
// the queue does not draw the list again: an item being clicked is not
// replaced between the press and the release (which loses the click).
func TestOwnClaimKeepsTheListDrawn(t *testing.T) {
	s, ctx, id := runnerProSignedIn(t)
	s.submit(s.f.A, "both", proposal{"SKU-M", 60, enrichment.Fields{Name: ptr("Trail Classic")}})
	do(t, ctx, chromedp.Reload())
	waitRevision(t, ctx, id)
	for deadline := time.Now().Add(10 * time.Second); s.statuses.requests("POST /api/enrichment/review/claims/"+id) == 0; time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the revision shown was not claimed")
		}
	}
	waitFor(t, ctx, "the queue to settle", queueIdle)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('#queue-list li').forEach((li) => { li.__drawn = true; })`))
	const reads = "GET /api/enrichment/review/queue"
	before := s.statuses.requests(reads)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#bands .band[data-band="all"]`))) // the queue read again, the same
	for deadline := time.Now().Add(10 * time.Second); s.statuses.requests(reads) == before; time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the queue was not read again")
		}
	}
	waitFor(t, ctx, "the queue to settle", queueIdle)
	if !eval[bool](t, ctx, `[...document.querySelectorAll('#queue-list li')].every((li) => li.__drawn)`) {
		t.Error("the list was drawn again for the page's own claim")
	}
}

// holdQueueJS, run before the page's scripts at each load, holds the
// queue's reads back until window.__releaseQueue() is called, as a slow
// answer would, and counts their answers (window.__queueAnswers).
const holdQueueJS = `if (location.protocol.startsWith('http')) {
	const real = window.fetch;
	let release;
	const released = new Promise((resolve) => { release = resolve; });
	window.__releaseQueue = () => release();
	window.__queueAnswers = 0;
	window.fetch = function (input, init) {
		const url = String(input instanceof Request ? input.url : input);
		if (/review\/queue/.test(url)) return released.then(() => real.call(this, input, init)).finally(() => window.__queueAnswers++);
		return real.call(this, input, init);
	};
}`

// TestViewChosenWhileTheQueueLoads: while the queue's first page is being
// read, the page says "Loading…" rather than showing an empty queue view
// (whose list, when it came, moved everything below it), and a view the
// reviewer chooses meanwhile stays shown when that page comes, as does
// the sign-in form of a reviewer who signed out meanwhile.
func TestViewChosenWhileTheQueueLoads(t *testing.T) {
	s, ctx, _ := runnerProSignedIn(t)
	waitQueue(t, ctx)
	onEveryLoad(t, ctx, holdQueueJS)
	do(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(s.url+"/"))
	waitFor(t, ctx, "the queue's first load under way", `!document.querySelector('#keys').hidden`)
	if !eval[bool](t, ctx, `document.querySelector('#queue-view').hidden && !document.querySelector('#loading').hidden`) {
		t.Error(`the queue view is shown before its first page is drawn, rather than "Loading…"`)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-overview")))
	waitFor(t, ctx, "the overview", `!document.querySelector('#overview-view').hidden`)
	eval[bool](t, ctx, `window.__releaseQueue(), true`)
	waitFor(t, ctx, "the queue's first page drawn", `document.querySelectorAll('#queue-list .item').length === 1`)
	if !eval[bool](t, ctx, `!document.querySelector('#overview-view').hidden && document.querySelector('#queue-view').hidden`) {
		t.Error("the queue's first page, drawn after the overview was chosen, took the overview's place")
	}

	do(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(s.url+"/#queue"))
	waitFor(t, ctx, "the queue's first load under way", `!document.querySelector('#keys').hidden`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#sign-out")))
	waitFor(t, ctx, "the sign-in form", `!document.querySelector('#signin').hidden`)
	eval[bool](t, ctx, `window.__releaseQueue(), true`)
	waitFor(t, ctx, "the queue's answers read", `window.__queueAnswers > 0 && !document.querySelector('#queue-list').hasAttribute('aria-busy')`)
	if !eval[bool](t, ctx, `!document.querySelector('#signin').hidden && document.querySelector('#queue-view').hidden`) {
		t.Error("the queue's first page, answered after the reviewer signed out, took the sign-in form's place")
	}
}
