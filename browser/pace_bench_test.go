package browser

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
)

// paceSteps is how many decisions and moves each measurement takes: few
// enough that 40 pending last both screen sizes.
const paceSteps = 8

// BenchmarkReviewPage measures the reviewers' page as a reviewer meets it,
// with 40, 2,000 and 20,000 pending proposals (one per product of a
// generated catalog), on a desktop (1440×900) and a phone (390×844): the
// time to interactive of the queue (from the start of the page's load to
// the list, its counts and the first revision shown, signed in), the time
// from a decision (the key a) to the next revision shown, with the page's
// 5 s undo delay and with decisions sent at once, and from j to the next
// revision. Times are taken in the page (performance.now()), so the test's
// polling does not count; each is reported as its median in ms. Run it
// alone, under the machine's benchmark lock:
//
//	flock /work/bench.lock go test ./browser -run '^$' -bench ReviewPage -benchtime 1x
func BenchmarkReviewPage(b *testing.B) {
	tabTimeout = 10 * time.Minute
	for _, pending := range []int{40, 2_000, 20_000} {
		b.Run(fmt.Sprintf("pending=%d", pending), func(b *testing.B) {
			// note: a service (an origin) per size, so that nothing the
			// page stored for one is found by the next
			s := newService(b)
			email := seedPending(b, s, pending)
			for _, screen := range []struct {
				name string
				size chromedp.Action[chromedp.Void]
			}{
				{"1440x900", chromedp.EmulateViewport(viewportW, viewportH)},
				{"390x844", chromedp.EmulateViewport(phoneW, phoneH, chromedp.EmulateMobile, chromedp.EmulateTouch)},
			} {
				b.Run(screen.name, func(b *testing.B) {
					for range b.N {
						measurePace(b, s, email, screen.size, min(50, pendingIn(b, s, email)))
					}
				})
			}
		})
	}
}

// seedPending makes an organization whose queue holds n pending proposals,
// one per active product of a generated catalog (a tenth larger, since
// some of its products are inactive), and returns its reviewer's email.
func seedPending(b testing.TB, s *service, n int) string {
	tenant, err := fixture.AddTenant(s.app, fmt.Sprintf("Pace %d", n))
	if err != nil {
		b.Fatal(err)
	}
	var file bytes.Buffer
	if err := gen.Write(&file, gen.Options{Products: n + n/10, Templates: 6, Brands: 24, Seed: 15}); err != nil {
		b.Fatal(err)
	}
	if _, err := catalog.Import(s.app, tenant.Org, &file, catalog.Options{}); err != nil {
		b.Fatal(err)
	}
	// note: the generated images' host does not exist; each product's image
	// comes from a server of the test's own, as a real catalog's would load
	if _, err := s.app.DB().NewQuery("UPDATE products SET images = json_array({:img} || '/' || sku || '.png') WHERE organization = {:org}").
		Bind(map[string]any{"img": imageServer(b), "org": string(tenant.Org)}).Execute(); err != nil {
		b.Fatal(err)
	}
	var skus []string
	if err := s.app.DB().NewQuery("SELECT sku FROM products WHERE organization = {:org} AND active ORDER BY CAST(id AS INTEGER) LIMIT {:n}").
		Bind(map[string]any{"org": string(tenant.Org), "n": n}).Column(&skus); err != nil {
		b.Fatal(err)
	}
	st := store.New(s.app)
	for start := 0; start < len(skus); start += 1000 {
		var batch []enrichment.Proposal
		for i, sku := range skus[start:min(start+1000, len(skus))] {
			confidence := (start + i) * 37 % 101
			name := "Better name for " + sku
			description := fmt.Sprintf("A better description of %s, proposal %d, with a few words more than before.", sku, start+i)
			batch = append(batch, enrichment.Proposal{SKU: sku, Confidence: &confidence,
				Fields: enrichment.Fields{Name: &name, Description: &description}})
		}
		if _, err := st.Proposals().Submit(tenant.Org, tenant.Clients["both"], batch, store.SubmitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	email := fmt.Sprintf("pace%d@pace.example", n)
	s.addReviewer(tenant.Org, email)
	if got := pendingIn(b, s, email); got != n {
		b.Fatalf("%d pending proposals, want %d", got, n)
	}
	return email
}

// pendingIn counts the pending revisions of the reviewer's organization.
func pendingIn(t testing.TB, s *service, email string) int {
	var n int
	err := s.app.DB().NewQuery(`SELECT COUNT(*) FROM revisions WHERE status = 'pending' AND organization =
		(SELECT organization FROM reviewers WHERE email = {:email})`).Bind(map[string]any{"email": email}).Row(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitLeft waits until, the page left, the reviewer's organization has
// want pending revisions: what the page held was sent.
func waitLeft(t testing.TB, s *service, email string, want int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); pendingIn(t, s, email) > want; time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			s.statuses.mu.Lock()
			defer s.statuses.mu.Unlock()
			t.Fatalf("%d pending after leaving the page, want %d (answers by status: %v)", pendingIn(t, s, email), want, s.statuses.n)
		}
	}
}

// measurePace takes one round of measurements at one screen size.
func measurePace(b *testing.B, s *service, email string, size chromedp.Action[chromedp.Void], listed int) {
	before := pendingIn(b, s, email)
	held := newTabHolding(b, -1)
	do(b, held, size)
	enterQueue(b, held, s.url, email)
	tti := timesToInteractive(b, held, s.url, listed, 5)
	undoDelay := decisionsToNext(b, held, paceSteps)
	moves := movesToNext(b, held, paceSteps)
	// note: leaving the page sends what it holds; the next tab must not
	// find those revisions still pending
	do(b, held, chromedp.Navigate("about:blank"))
	waitLeft(b, s, email, before-paceSteps)
	atOnce := newTabHolding(b, 0)
	do(b, atOnce, size)
	enterQueue(b, atOnce, s.url, email)
	sent := decisionsToNext(b, atOnce, paceSteps)
	report(b, "tti", tti)
	report(b, "decision-next", undoDelay)
	report(b, "decision-sent-next", sent)
	report(b, "j-next", moves)
}

// enterQueue opens the page at the queue, signing in unless the sign-in of
// an earlier tab is remembered (tabs share the origin's storage).
func enterQueue(b testing.TB, ctx context.Context, base, email string) {
	do(b, ctx, chromedp.Navigate(base+"/"))
	waitFor(b, ctx, "the sign-in form or the queue", `!document.querySelector('#signin').hidden || (`+queueIdle+`)`)
	if eval[bool](b, ctx, `!document.querySelector('#signin').hidden`) {
		signIn(b, ctx, base, email)
	}
	waitQueue(b, ctx)
}

// interactiveJS resolves, checking at every frame, to the page's clock when
// the queue is interactive: its list of %d drawn and not loading, the band
// counts drawn, the first revision shown.
const interactiveJS = `new Promise((resolve) => {
	const ready = () => document.querySelectorAll('#queue-list .item').length === %d &&
		!document.querySelector('#queue-list').hasAttribute('aria-busy') &&
		document.querySelectorAll('#bands .band').length === 5 &&
		!document.querySelector('#revision-body').hasAttribute('aria-busy') &&
		(document.querySelector('#rev-title + .meta')?.textContent ?? '').startsWith('Revision #');
	const tick = () => (ready() ? resolve(performance.now()) : requestAnimationFrame(tick));
	tick();
})`

// timesToInteractive loads the page n times (the sign-in remembered) and
// returns each load's time to interactive, with listed revisions listed.
func timesToInteractive(b testing.TB, ctx context.Context, base string, listed, n int) []time.Duration {
	var out []time.Duration
	for range n {
		do(b, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/"))
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](within(fmt.Sprintf(interactiveJS, listed)), chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, time.Duration(ms*float64(time.Millisecond)))
	}
	return out
}

// nextShownJS resolves to the time from the last key pressed (window.__key)
// to revision id shown.
func nextShownJS(id string) string {
	return `new Promise((resolve) => {
		const shown = () => !document.querySelector('#revision-body').hasAttribute('aria-busy') &&
			(document.querySelector('#rev-title + .meta')?.textContent ?? '').startsWith('Revision #' + ` + js(id) + ` + ' ');
		const tick = () => (shown() ? resolve(performance.now() - window.__key) : requestAnimationFrame(tick));
		tick();
	})`
}

// stampKeysJS notes in the page when each key is pressed.
const stampKeysJS = `window.__stamped || (window.__stamped = document.addEventListener('keydown', () => { window.__key = performance.now(); }, true) || true)`

// decisionsToNext accepts n revisions in a row with the key a and returns
// the time from each key to the next revision shown.
func decisionsToNext(b testing.TB, ctx context.Context, n int) []time.Duration {
	return stepsToNext(b, ctx, n, "a")
}

// movesToNext moves n times to the next revision with j.
func movesToNext(b testing.TB, ctx context.Context, n int) []time.Duration {
	return stepsToNext(b, ctx, n, "j")
}

// stepsToNext presses key n times, each once the revision after the one
// shown is the next of the list, and returns the time from each key to it.
func stepsToNext(b testing.TB, ctx context.Context, n int, key string) []time.Duration {
	do(b, ctx, chromedp.Evaluate[chromedp.Void](stampKeysJS))
	var out []time.Duration
	for range n {
		waitFor(b, ctx, "a revision", `document.querySelector('#queue-list .item[aria-current=true]') && !document.querySelector('#revision-body').hasAttribute('aria-busy')`)
		ids := queueIDs(b, ctx)
		want := ids[slices.Index(ids, selectedID(b, ctx))+1]
		press(b, ctx, key)
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](within(nextShownJS(want)), chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, time.Duration(ms*float64(time.Millisecond)))
	}
	return out
}

// within fails the promise of expr after 20 s, with the page's text.
func within(expr string) string {
	return `Promise.race([` + expr + `, new Promise((_, fail) => setTimeout(() =>
		fail(new Error('not within 20 s: ' + document.body.innerText.replace(/\s+/g, ' ').slice(0, 600))), 20000))])`
}

// report logs the median and the slowest of times and reports the median.
func report(b *testing.B, name string, times []time.Duration) {
	sorted := slices.Sorted(slices.Values(times))
	median := sorted[len(sorted)/2]
	b.Logf("%s: median %v, slowest %v, all %v", name, median.Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond), times)
	b.ReportMetric(float64(median.Microseconds())/1000, name+"-ms")
}
