package browser

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/chromedp/chromedp"
)

// do runs actions in the tab or fails the test.
func do(t testing.TB, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor waits until a JavaScript expression is truthy.
func waitFor(t testing.TB, ctx context.Context, what, expr string) {
	t.Helper()
	var err error
	deadline := time.Now().Add(20 * time.Second)
	// note: chromedp's poll waits for the page's execution context, which
	// it may never learn of (a page the back/forward cache restored): it
	// waits no longer than this wait
	pollCtx, cancel := context.WithDeadline(ctx, deadline.Add(time.Second))
	defer cancel()
	for ; ; time.Sleep(25 * time.Millisecond) {
		_, err = chromedp.Run(pollCtx, chromedp.Poll[chromedp.Void](expr,
			chromedp.WithPollingInterval(25*time.Millisecond), chromedp.WithPollingTimeout(max(time.Until(deadline), 10*time.Millisecond))))
		// note: right after a navigation, on a loaded machine, the poll may
		// start in the document before, whose context is gone; it is asked
		// again in the new one
		if err == nil || !strings.Contains(err.Error(), "Cannot find context with specified id") || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		state, stateErr := chromedp.Run(ctx, chromedp.Evaluate[string](`[
			'address: ' + location.href,
			'notice: ' + document.querySelector('#notice')?.textContent,
			'selected: ' + (document.querySelector('#queue-list .item[aria-current=true]')?.dataset.id ?? 'none'),
			'queue: ' + document.querySelector('#queue-summary')?.textContent,
			'revision view: ' + document.querySelector('#revision')?.innerText.slice(0, 600),
			'page: ' + document.querySelector('main')?.innerText.slice(0, 600),
		].join('\n')`))
		if stateErr != nil {
			state = "the page's state could not be read: " + stateErr.Error()
		}
		t.Fatalf("waiting for %s (%s): %v\n%s", what, expr, err, state)
	}
}

// evalUntil waits until expr is true, evaluating it afresh each time: in a
// tab that navigates evaluations fail, and a poll started in a page the
// back/forward cache restored did not end.
func evalUntil(t testing.TB, ctx context.Context, what, expr string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(25 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s (%s): %v", what, expr, err)
		}
	}
}

// text is the visible text of the first element matching a CSS selector.
func text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(v)
}

// js quotes a string for a JavaScript expression.
func js(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// signIn opens the page and signs a reviewer in through the form, then
// waits for the queue to be loaded.
func signIn(t testing.TB, ctx context.Context, base, email string) {
	t.Helper()
	signInWith(t, ctx, base, email, reviewerPassword)
}

// signInWith signs in with any password (a superuser's, say).
func signInWith(t testing.TB, ctx context.Context, base, email, password string) {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), email),
		chromedp.SendKeys(chromedp.CSS("#password"), password),
		chromedp.Click(chromedp.CSS("#signin-submit")),
	)
	waitQueue(t, ctx)
}

// queueIdle is true when the queue is shown and no load is under way.
const queueIdle = `!document.querySelector('#queue-view').hidden && !document.querySelector('#queue-list').hasAttribute('aria-busy')`

// waitQueue waits until the queue shows its list and band counts.
func waitQueue(t testing.TB, ctx context.Context) {
	t.Helper()
	waitFor(t, ctx, "the queue", queueIdle+` &&
		document.querySelectorAll('#bands .band').length === 5 &&
		/pending|Nothing/.test(document.querySelector('#queue-summary').textContent)`)
}

// queueIDs are the revision ids listed in the queue, in order.
func queueIDs(t testing.TB, ctx context.Context) []string {
	t.Helper()
	return eval[[]string](t, ctx, `[...document.querySelectorAll('#queue-list .item')].map(e => e.dataset.id)`)
}

// queueSKUs are the SKUs listed in the queue, in order.
func queueSKUs(t testing.TB, ctx context.Context) []string {
	t.Helper()
	return eval[[]string](t, ctx, `[...document.querySelectorAll('#queue-list .item')].map(e => e.dataset.sku)`)
}

// bandCounts are the counts of the band buttons, by band ("all", "80-100", …, "" for none).
func bandCounts(t testing.TB, ctx context.Context) map[string]string {
	t.Helper()
	return eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('#bands .band')]
		.map(b => [b.dataset.band, b.querySelector('.count').textContent]))`)
}

// selectedID is the id of the revision selected in the queue.
func selectedID(t testing.TB, ctx context.Context) string {
	t.Helper()
	return eval[string](t, ctx, `document.querySelector('#queue-list .item[aria-current=true]')?.dataset.id ?? ''`)
}

// waitRevision waits until the revision view shows revision id.
func waitRevision(t testing.TB, ctx context.Context, id string) {
	t.Helper()
	waitFor(t, ctx, "revision "+id, `[...document.querySelectorAll('#revision, #revision-body')].every(e => !e.hasAttribute('aria-busy')) &&
		(document.querySelector('#rev-title + .meta')?.textContent ?? '').startsWith('Revision #'+`+js(id)+`+' ')`)
}

// runnerProSignedIn starts the service with one pending proposal (a new
// name for SKU-1, revision id) and a tab signed in as its organization's
// reviewer ann@alpha.example.
func runnerProSignedIn(t *testing.T) (s *service, ctx context.Context, id string) {
	t.Helper()
	s = newService(t)
	id = s.submit(s.f.A, "both", proposal{"SKU-1", 92, enrichment.Fields{Name: ptr("Runner Pro")}})[0]
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	ctx = newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	return s, ctx, id
}

// openRevision clicks revision id in the queue and waits for its view.
func openRevision(t testing.TB, ctx context.Context, id string) {
	t.Helper()
	waitFor(t, ctx, "the queue to settle", queueIdle)
	clickOnScreen(t, ctx, `#queue-list .item[data-id="`+id+`"]`)
	waitRevision(t, ctx, id)
}

// clickOnScreen clicks the element sel names, as a reviewer would. An element
// replaced between being found and being clicked (the list drawn again
// by a live update, under load) is found again: a person's click lands
// on what is on the screen.
func clickOnScreen(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	for {
		err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel)))
		if err == nil {
			return
		}
		stale := strings.Contains(err.Error(), "Could not find node") || strings.Contains(err.Error(), "Node is detached")
		if !stale || ctx.Err() != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}
}

// waitGone waits until revision id has left the queue.
func waitGone(t testing.TB, ctx context.Context, id string) {
	t.Helper()
	waitFor(t, ctx, "revision "+id+" to leave the queue",
		`!document.querySelector('#queue-list .item[data-id="`+id+`"]')`)
}

// press sends keys to the focused element, one key at a time.
func press(t testing.TB, ctx context.Context, keys string) {
	t.Helper()
	do(t, ctx, chromedp.KeyEvent(keys))
}

// screenshot saves the tab's viewport as name.png under $SCREENSHOT_DIR, or
// browser/screenshots (ignored by git), for people to look at.
func screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		dir = "screenshots"
	}
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// openLink opens the page afresh at base/#queue/id, as a shared link does,
// and waits for the queue.
func openLink(t testing.TB, ctx context.Context, base, id string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#queue/"+id))
	waitQueue(t, ctx)
}
