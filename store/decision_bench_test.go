package store_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
)

// BenchmarkDecision measures one reviewer's decision saved as a record
// (the review hook: the rules, the product write, the counters, the
// webhook outbox and the change feed, in one transaction): an acceptance of
// everything a typical proposal proposes. It reports the median besides
// the mean.
//
//	GOTOOLCHAIN=auto go test ./store/ -run '^$' -bench Decision -benchtime 500x
func BenchmarkDecision(b *testing.B) {
	env := newBenchEnv(b)
	rng := rand.New(rand.NewPCG(7, 8))
	var pending []int64
	n := 0
	var took []time.Duration
	for b.Loop() {
		if len(pending) == 0 {
			b.StopTimer()
			batch := benchProposals(rng, env.skus[(n%4)*1000:(n%4)*1000+1000])
			res, err := env.st.Submit(env.org, env.client, batch, store.SubmitOptions{ExternalID: fmt.Sprint("decide-", n)})
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range res {
				if r.RevisionID != nil {
					pending = append(pending, *r.RevisionID)
				}
			}
			n++
			b.StartTimer()
		}
		t0 := time.Now()
		rec, err := env.app.FindRecordById("revisions", store.FormatID(pending[0]))
		if err != nil {
			b.Fatal(err)
		}
		rec.Set("status", enrichment.StatusAccepted)
		if err := env.app.Save(rec); err != nil {
			b.Fatalf("decide %d: %v", pending[0], err)
		}
		took = append(took, time.Since(t0))
		if rec.GetString("reviewer") != "system" {
			b.Fatal("the review hook did not run")
		}
		pending = pending[1:]
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
}
