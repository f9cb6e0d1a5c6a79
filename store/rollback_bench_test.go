package store_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// rollbackBenchRevisions is the size of the rollback the contract bounds
// (10,000 revisions within 10 s).
const rollbackBenchRevisions = 10_000

// BenchmarkRollback10k rolls back one client's 10,000 accepted revisions
// of 10,000 products of the 20k catalog (typical proposals: a name, most
// with attributes, many with a description, some with files), each
// accepted in full through the review hook beforehand: once as a dry run,
// then for real (chunks of 500, each one transaction with the products,
// revisions, counters, change feed and webhook outbox). Each figure is one
// rollback's wall time.
//
//	GOTOOLCHAIN=auto go test ./store -run '^$' -bench Rollback10k -benchtime 1x
func BenchmarkRollback10k(b *testing.B) {
	env := newBenchEnv(b)
	rng := rand.New(rand.NewPCG(27, 1))
	for b.Loop() {
		b.StopTimer()
		since := clock.Wall().Add(-time.Second)
		skus := env.distinctSKUs(rng, rollbackBenchRevisions)
		var ids []int64
		for i := 0; i < len(skus); i += 1000 {
			res, err := env.st.Proposals().Submit(env.org, env.client, benchProposals(rng, skus[i:i+1000]), store.SubmitOptions{})
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range res {
				if r.RevisionID != nil {
					ids = append(ids, *r.RevisionID)
				}
			}
		}
		err := env.app.RunInTransaction(func(tx core.App) error {
			for _, id := range ids {
				rec, err := tx.FindRecordById(schema.Revisions, store.FormatID(id))
				if err != nil {
					return err
				}
				rec.Set("status", enrichment.StatusAccepted)
				if err := tx.Save(rec); err != nil {
					return fmt.Errorf("accept %d: %w", id, err)
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		sel := store.RollbackSelection{Client: env.client, Window: store.Window{Since: since}, DryRun: true}
		b.StartTimer()

		t0 := clock.Wall()
		dry, err := env.st.Review().Rollback(env.org, sel, "bench", clock.Now(env.app))
		dryTook := time.Since(t0)
		if err != nil || dry.Revisions != len(ids) {
			b.Fatalf("dry run: %+v, %v; want %d revisions", dry, err, len(ids))
		}
		sel.DryRun = false
		t0 = clock.Wall()
		res, err := env.st.Review().Rollback(env.org, sel, "bench", clock.Now(env.app))
		took := time.Since(t0)
		if err != nil || res.Revisions != len(ids) || res.Conflicts != 0 || res.Products != len(ids) {
			b.Fatalf("rollback: %+v, %v; want %d revisions and products, no conflict", res, err, len(ids))
		}
		b.ReportMetric(dryTook.Seconds(), "dry-run-s")
		b.ReportMetric(took.Seconds(), "rollback-s")
		b.ReportMetric(float64(res.Restored), "restored")
	}
}
