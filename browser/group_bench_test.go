package browser

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// BenchmarkGroupDecision measures, in the page, the acceptance of n
// pending revisions (each proposing a name and a description) the way the
// page sent a group before, one records API update after another, and the
// way it sends one now, as one group decision; each reported in ms, as
// the page's performance.now() sees it. Run it alone, under the machine's
// benchmark lock:
//
//	flock /work/bench.lock go test ./browser -run '^$' -bench GroupDecision -benchtime 1x
func BenchmarkGroupDecision(b *testing.B) {
	tabTimeout = 10 * time.Minute
	for _, n := range []int{364, 500} {
		b.Run(fmt.Sprintf("revisions=%d", n), func(b *testing.B) {
			for range b.N {
				s := newService(b)
				email := seedPending(b, s, 2*n)
				ctx := newTab(b)
				enterQueue(b, ctx, s.url, email)
				var ids []string
				err := s.app.DB().NewQuery(`SELECT id FROM revisions WHERE status = 'pending' AND organization =
					(SELECT organization FROM reviewers WHERE email = {:email}) ORDER BY CAST(id AS INTEGER)`).
					Bind(map[string]any{"email": email}).Column(&ids)
				if err != nil || len(ids) != 2*n {
					b.Fatalf("%d pending: %v", len(ids), err)
				}
				one := awaited(b, ctx, fmt.Sprintf(`(async () => {
					const api = await import('/lib/api.js');
					const t0 = performance.now();
					for (const id of %s) await api.decide(id, { status: 'accepted' });
					return performance.now() - t0;
				})()`, jsList(ids[:n])))
				group := awaited(b, ctx, fmt.Sprintf(`(async () => {
					const api = await import('/lib/api.js');
					const t0 = performance.now();
					const res = await api.decideGroup(%s.map((id) => ({ id, status: 'accepted' })));
					if (res.decided !== %d) throw new Error(JSON.stringify(res).slice(0, 300));
					return performance.now() - t0;
				})()`, jsList(ids[n:]), n))
				if left := pendingIn(b, s, email); left != 0 {
					b.Fatalf("%d still pending", left)
				}
				b.ReportMetric(one, "one-by-one-ms")
				b.ReportMetric(group, "group-ms")
			}
		})
	}
}

// awaited evaluates an expression whose value is a promise of a number, and waits for it.
func awaited(b testing.TB, ctx context.Context, expr string) float64 {
	b.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.Fatalf("evaluate: %v", err)
	}
	return v
}

// jsList writes ids as a JavaScript array of strings.
func jsList(ids []string) string {
	out := "["
	for i, id := range ids {
		if i > 0 {
			out += ","
		}
		out += `"` + id + `"`
	}
	return out + "]"
}
