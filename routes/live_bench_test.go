package routes_test

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
)

// BenchmarkLiveSubmission measures what realtime subscribers cost a
// submission of 1000 proposals: the process's CPU time per submission,
// the submission's own latency (p50), and, with a subscriber, how long
// after the request its last create message arrives. "none" has no
// subscriber; "reviewer" has one of the organization's reviewers
// subscribed to every revision, as the review page is. The batches propose
// new names for the same products, so after the first each item also
// supersedes an earlier proposal (an update message each).
//
//	GOTOOLCHAIN=auto go test ./routes/ -run '^$' -bench LiveSubmission -benchtime 20x
func BenchmarkLiveSubmission(b *testing.B) {
	for _, subscriber := range []string{"none", "reviewer"} {
		b.Run(subscriber, func(b *testing.B) {
			f := fixture.Get(b)
			app := f.NewApp(b)
			b.Cleanup(app.Cleanup)
			srv := httptest.NewServer(fixture.Serve(b, app))
			b.Cleanup(srv.Close)
			var events <-chan realtimeEvent
			if subscriber == "reviewer" {
				events = subscribeRevisions(b, srv.URL, fixture.ReviewerToken(b, app, string(f.A.Org)))
			}
			h := srv.Config.Handler
			key := f.A.Keys["submit"]
			round := 0
			var took, heard []time.Duration
			cpu := cpuTime()
			for b.Loop() {
				round++
				items := make([]string, 1000)
				for i := range items {
					items[i] = fmt.Sprintf(`{"sku":"BULK-%04d","name":"Live %d-%d"}`, i%fixture.BulkProducts+1, round, i)
				}
				t0 := clock.Wall()
				res := request(h, "POST", submitURL, key, `{"items":[`+strings.Join(items, ",")+`]}`)
				took = append(took, time.Since(t0))
				if res.Code != 200 {
					b.Fatalf("submit: %d %s", res.Code, res.Body)
				}
				if events == nil {
					continue
				}
				for creates := 0; creates < len(items); {
					select {
					case e := <-events:
						if e.Action == "create" {
							creates++
						}
					case <-time.After(30 * time.Second):
						b.Fatalf("heard %d of %d creates", creates, len(items))
					}
				}
				heard = append(heard, time.Since(t0))
				for quiet := false; !quiet; { // the updates of what it superseded
					select {
					case <-events:
					case <-time.After(100 * time.Millisecond):
						quiet = true
					}
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "p50-ms")
			if len(heard) > 0 {
				slices.Sort(heard)
				b.ReportMetric(float64(heard[len(heard)/2].Milliseconds()), "heard-p50-ms")
			}
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
