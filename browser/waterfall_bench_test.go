package browser

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkReviewPageWaterfall shows where the queue's first load spends
// its time, with 40 and 20,000 pending at 1440×900: for one load (the sign-in
// remembered), every request the page made until the queue was
// interactive, in the order it started, with when it started, when its
// answer began (the server's time is the gap) and when it ended, in ms from
// the start of the load; and the first paint. It reports the time to
// interactive as BenchmarkReviewPage does.
//
//	flock /work/bench.lock go test ./browser -run '^$' -bench ReviewPageWaterfall -benchtime 3x -v
func BenchmarkReviewPageWaterfall(b *testing.B) {
	tabTimeout = 10 * time.Minute
	for _, pending := range []int{40, 20_000} {
		b.Run(fmt.Sprintf("pending=%d", pending), func(b *testing.B) {
			s := newService(b)
			email := seedPending(b, s, pending)
			ctx := newTab(b)
			enterQueue(b, ctx, s.url, email)
			var ttis []time.Duration
			for range b.N {
				ttis = append(ttis, timesToInteractive(b, ctx, s.url, min(50, pending), 1)...)
				b.Log(waterfall(b, ctx))
			}
			report(b, "tti", ttis)
			profiled(b, ctx, func() { timesToInteractive(b, ctx, s.url, min(50, pending), 1) })
			movesBrokenDown(b, ctx, 8)
			profiled(b, ctx, func() { movesBrokenDown(b, ctx, 8) })
			profiled(b, ctx, func() { b.Logf("after a: %v", decisionsToNext(b, ctx, 8)) })
		})
	}
}

// waterfallJS lists the page's navigation, resources and paints.
const waterfallJS = `JSON.stringify(performance.getEntries().map((e) => ({
	type: e.entryType, name: e.name.replace(location.origin, ''), start: e.startTime,
	req: e.requestStart ?? 0, res: e.responseStart ?? 0, end: e.responseEnd ?? e.startTime + e.duration,
	scripts: (e.scripts ?? []).filter((s) => s.duration >= 5).map((s) =>
		Math.round(s.duration) + 'ms ' + s.invoker + ' ' + s.sourceFunctionName + ' ' + s.sourceURL.replace(location.origin, '')).join('; '),
	render: e.renderStart ? Math.round(e.startTime + e.duration - e.renderStart) : 0,
})))`

// waterfall writes the page's entries as a table.
func waterfall(b *testing.B, ctx context.Context) string {
	b.Helper()
	out, err := formatEntries(eval[string](b, ctx, waterfallJS))
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// entry is one of the page's performance entries.
type entry struct {
	Type  string  `json:"type"`
	Name  string  `json:"name"`
	Start float64 `json:"start"`
	Req   float64 `json:"req"`
	Res   float64 `json:"res"`
	End   float64 `json:"end"`
	// a long animation frame's scripts of 5 ms or more, and its rendering's time
	Scripts string  `json:"scripts"`
	Render  float64 `json:"render"`
}

func formatEntries(raw string) (string, error) {
	var es []entry
	if err := json.Unmarshal([]byte(raw), &es); err != nil {
		return "", fmt.Errorf("read the entries: %w", err)
	}
	var out strings.Builder
	out.WriteString("\n  start   server    end  what\n")
	for _, e := range es {
		name := e.Name
		if len(name) > 110 {
			name = name[:110] + "…"
		}
		server := ""
		if e.Res > 0 && e.Req > 0 {
			server = fmt.Sprintf("%6.1f", e.Res-e.Req)
		}
		if e.Type == "long-animation-frame" {
			name = fmt.Sprintf("rendering %.0f ms; %s", e.Render, e.Scripts)
		}
		fmt.Fprintf(&out, "%7.1f %7s %6.1f  %s %s\n", e.Start, server, e.End, e.Type, name)
	}
	return out.String(), nil
}

// drawnJS notes in the page (window.__drawn) when the revision view is
// drawn, its script done, before the frame that shows it.
const drawnJS = `window.__drawnOn || (window.__drawnOn = new MutationObserver(() => {
	if (!document.querySelector('#revision-body').hasAttribute('aria-busy')) window.__drawn = performance.now();
}).observe(document.querySelector('#revision-body'), { attributes: true, attributeFilter: ['aria-busy'] }) || true)`

// movesBrokenDown presses j n times and logs, for each, the time from the
// key to the revision drawn by the page's script and to the frame after.
func movesBrokenDown(b *testing.B, ctx context.Context, n int) {
	do(b, ctx, chromedp.Evaluate[chromedp.Void](stampKeysJS), chromedp.Evaluate[chromedp.Void](drawnJS))
	var out strings.Builder
	for range n {
		waitFor(b, ctx, "a revision", `document.querySelector('#queue-list .item[aria-current=true]') && !document.querySelector('#revision-body').hasAttribute('aria-busy')`)
		ids := queueIDs(b, ctx)
		want := ids[slices.Index(ids, selectedID(b, ctx))+1]
		press(b, ctx, "j")
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](within(nextShownJS(want)), chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&out, "j: drawn %.1f ms, shown %.1f ms; ", eval[float64](b, ctx, `window.__drawn - window.__key`), ms)
	}
	b.Log(out.String())
}

// profiled runs steps under the page's JavaScript profiler and logs the
// functions that took the most of its samples, by their own time.
func profiled(b *testing.B, ctx context.Context, steps func()) {
	call := func(f func(ctx context.Context, t *chromedp.Target) error) {
		if _, err := chromedp.Run(ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
			return chromedp.Void{}, f(ctx, t)
		})); err != nil {
			b.Fatal(err)
		}
	}
	call(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, profiler.Enable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, profiler.Start, cdp.Empty{})
		return err
	})
	steps()
	var prof *profiler.Profile
	call(func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, profiler.Stop, cdp.Empty{})
		prof = res.Profile
		return err
	})
	// note: a node's own time is its share of the samples
	hits := map[string]int64{}
	var total int64
	for _, n := range prof.Nodes {
		f := n.CallFrame
		key := f.FunctionName
		if f.URL != "" {
			key += fmt.Sprintf(" %s:%d", f.URL[strings.LastIndex(f.URL, "/")+1:], f.LineNumber+1)
		}
		hits[key] += n.HitCount
		total += n.HitCount
	}
	keys := slices.SortedFunc(maps.Keys(hits), func(a, b string) int { return cmp.Compare(hits[b], hits[a]) })
	span := (prof.EndTime - prof.StartTime) / 1000
	var out strings.Builder
	fmt.Fprintf(&out, "\nprofile of %.0f ms, own time:\n", span)
	for _, k := range keys[:min(30, len(keys))] {
		fmt.Fprintf(&out, "%8.1f ms  %s\n", span*float64(hits[k])/float64(total), k)
	}
	b.Log(out.String())
}
