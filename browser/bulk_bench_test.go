package browser

import (
	"testing"
	"time"
)

// BenchmarkBulkMatching measures the page's bulk accept of everything the
// filters match, with 500 pending revisions (one per product, each
// proposing a name and a description), as a reviewer meets it: from Accept
// all… to the dialog listing the 500 SKUs (the matching revisions read,
// the group accept planned), and from the dialog's Accept to the group
// decision answered (one request, sent at once), in ms, as the page's
// performance.now() sees it. Run it alone, under the machine's benchmark
// lock:
//
//	flock /work/bench.lock go test ./browser -run '^$' -bench BulkMatching -benchtime 1x
func BenchmarkBulkMatching(b *testing.B) {
	tabTimeout = 10 * time.Minute
	const n = 500
	for range b.N {
		s := newService(b)
		email := seedPending(b, s, n)
		ctx := newTab(b)
		enterQueue(b, ctx, s.url, email)
		toDialog := awaited(b, ctx, within(`new Promise((resolve) => {
			const t0 = performance.now();
			document.querySelector('#match-accept').click();
			const tick = () => (document.querySelector('#confirm').open &&
				document.querySelectorAll('#confirm-details li').length === 500 ? resolve(performance.now() - t0) : requestAnimationFrame(tick));
			tick();
		})`))
		decided := awaited(b, ctx, within(`new Promise((resolve) => {
			const t0 = performance.now();
			document.querySelector('#confirm-ok').click();
			const tick = () => (/^Sent: Accept 500 matching revisions/.test(document.querySelector('#notice .said')?.textContent ?? '')
				? resolve(performance.now() - t0) : requestAnimationFrame(tick));
			tick();
		})`))
		if left := pendingIn(b, s, email); left != 0 {
			b.Fatalf("%d still pending", left)
		}
		b.ReportMetric(toDialog, "dialog-ms")
		b.ReportMetric(decided, "decision-ms")
		b.ReportMetric(toDialog+decided, "total-ms")
	}
}
