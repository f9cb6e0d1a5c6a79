package browser

import (
	"fmt"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
)

// leaveAtStreamJS, run before the page's scripts at each load, leaves the
// page (for about:blank) the moment it opens its live updates' stream, when
// its address asks (?leaveAtStream): a reviewer going elsewhere just then.
const leaveAtStreamJS = `if (new URLSearchParams(location.search).has('leaveAtStream')) {
	const Real = window.EventSource;
	window.EventSource = class extends Real {
		constructor(...args) {
			super(...args);
			queueMicrotask(() => location.assign('about:blank'));
		}
	};
}`

// TestLeftPageClosesItsLiveUpdates: a page left (for another page of the
// tab, where the browser keeps it in its back/forward cache) holds no
// live updates' stream open, whenever it is left: just as the queue is
// drawn, before the stream starts, or as the stream opens. Each stream
// left open kept one of the six connections a browser allows per server
// over HTTP/1.1 for a minute; with six, every request of the page waited,
// a load for up to a minute and the next revision after a decision 15 s
// (until the SDK gave its own stream up as too slow to connect).
// The page restored from the cache follows live updates again.
func TestLeftPageClosesItsLiveUpdates(t *testing.T) {
	s, ctx, _ := runnerProSignedIn(t)
	onEveryLoad(t, ctx, leaveAtStreamJS)
	const streams = "GET /api/realtime"
	for load := range 8 {
		atStream := load%2 == 1
		address := s.url + "/"
		if atStream {
			address += "?leaveAtStream"
		}
		do(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(address))
		if atStream {
			evalUntil(t, ctx, "the page left as its stream opened", `location.href === 'about:blank' && document.readyState === 'complete'`)
		} else {
			waitQueue(t, ctx)
			do(t, ctx, chromedp.Navigate("about:blank"))
		}
		// note: a stream the page closes ends on the server within ms, or
		// (closed before its answer began) when the browser gives the
		// connection up, 5 s later; one the page does not close, after a minute
		for deadline := time.Now().Add(10 * time.Second); s.statuses.underWay(streams) > 0; time.Sleep(25 * time.Millisecond) {
			if time.Now().After(deadline) {
				how := "as its queue was drawn"
				if atStream {
					how = "as its stream opened"
				}
				t.Fatalf("load %d, left %s: %d live updates' streams still open 10 s after leaving", load, how, s.statuses.underWay(streams))
			}
		}
	}

	// the page restored from the cache follows live updates again
	do(t, ctx, chromedp.Navigate(s.url+"/"))
	waitQueue(t, ctx)
	waitFor(t, ctx, "the live updates", `performance.getEntriesByType('resource').some((e) => /\/api\/realtime/.test(e.name))`)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.__left = true`), chromedp.Navigate("about:blank"))
	// note: NavigateBack waits for a load, which a restored page does not
	// fire; and the navigation is left to a task of its own, or it may
	// close the inspected page before this evaluation answers (seen in CI)
	eval[bool](t, ctx, `setTimeout(() => history.back(), 0), true`)
	evalUntil(t, ctx, "the page back", `location.href.startsWith(`+js(s.url+"/")+`) && document.readyState === 'complete'`)
	if !eval[bool](t, ctx, `window.__left === true`) {
		t.Log("Back loaded the page again rather than restoring it from the back/forward cache")
	}
	for deadline := time.Now().Add(5 * time.Second); s.statuses.underWay(streams) != 1; time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the page back: %d live updates' streams open, want 1", s.statuses.underWay(streams))
		}
	}
	id := s.submit(s.f.A, "both", proposal{"SKU-M", 40, enrichment.Fields{Name: ptr("Trail Classic")}})[0]
	evalUntil(t, ctx, fmt.Sprintf("revision %s, proposed meanwhile, in the queue", id), `!!document.querySelector('#queue-list .item[data-id="`+id+`"]')`)
}
