package store_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
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
			res, err := env.st.Proposals().Submit(env.org, env.client, batch, store.SubmitOptions{ExternalID: fmt.Sprint("decide-", n)})
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
		t0 := clock.Wall()
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

// BenchmarkDecideSet measures a set of 500 acceptances of typical
// proposals, as a group decision or a trust policy's step makes them
// (store.DecideSet: the same rules and effects as BenchmarkDecision's, in
// one transaction). It reports the time per decision besides the set's.
//
//	GOTOOLCHAIN=auto go test ./store/ -run '^$' -bench DecideSet -benchtime 10x
func BenchmarkDecideSet(b *testing.B) {
	env := newBenchEnv(b)
	rng := rand.New(rand.NewPCG(7, 9))
	const size = 500
	n := 0
	for b.Loop() {
		b.StopTimer()
		first := (n % 8) * size // products not decided before in this run's first 8 sets
		res, err := env.st.Proposals().Submit(env.org, env.client, benchProposals(rng, env.skus[first:first+size]),
			store.SubmitOptions{ExternalID: fmt.Sprint("set-", n)})
		if err != nil {
			b.Fatal(err)
		}
		var ds []store.SetDecision
		for _, r := range res {
			if r.RevisionID != nil {
				ds = append(ds, store.SetDecision{Revision: store.FormatID(*r.RevisionID),
					Decision: enrichment.Decision{Status: enrichment.StatusAccepted}})
			}
		}
		n++
		b.StartTimer()
		out, err := env.st.Review().DecideSet(env.org, ds, store.SetDecider{Name: "benchreviewer01"}, clock.Now(env.app))
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range out {
			if !o.Decided() {
				b.Fatalf("revision %s: %v", o.Revision, o.Err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*size), "µs/decision")
}
