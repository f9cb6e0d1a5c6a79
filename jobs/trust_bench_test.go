package jobs_test

// The trust policies under load, on a generated catalog of 20k products
// while the trust worker runs as in the server (a step a second, at once
// again while new revisions wait), 4 writers submitting batches of 1000
// proposals in a closed loop:
//
//   - trickle: the writers' proposals do not qualify (confidence 50); the
//     policy's client also sends 20 qualifying proposals every 250 ms:
//     the time from their storage to the policy's decision (p50, p95, max)
//     under the 4-writer load;
//   - half: half of the writers' proposals qualify (confidence 90): the
//     submission throughput beside the same load without a policy, how many
//     the policy accepted a second, and their time to decision.
//
//	TRUST_BENCH=1 GOTOOLCHAIN=auto go test ./jobs -run TestTrustBench -v -timeout 20m
//
// TRUST_BENCH_MODE=half (or trickle, none) runs that load alone, and
// TRUST_BENCH_SECONDS sets each load's duration (20 s).

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/catalogfixture"
	"github.com/catalog-enrichment/enrichment/jobs"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

const (
	trustBenchProducts = 20_000
	trustBenchWriters  = 4
	trustBenchBatch    = 1000
)

func TestTrustBench(t *testing.T) {
	if os.Getenv("TRUST_BENCH") == "" {
		t.Skip("set TRUST_BENCH=1 to run the trust policies' benchmark")
	}
	d := 20 * time.Second
	if s := os.Getenv("TRUST_BENCH_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		d = time.Duration(n) * time.Second
	}
	if only := os.Getenv("TRUST_BENCH_MODE"); only != "" { // one load alone, e.g. to profile it
		trustLoad(t, only, d)
		return
	}
	trustLoad(t, "trickle", d)
	base := trustLoad(t, "none", d)
	with := trustLoad(t, "half", d)
	t.Logf("submission throughput, %d writers, batches of %d: %.0f proposals/s without a policy, %.0f with an active policy for half of them",
		trustBenchWriters, trustBenchBatch, base, with)
}

// trustLoad runs the load of mode ("none": half would qualify, but there is
// no policy) for d and returns the writers' proposals stored per second.
func trustLoad(t *testing.T, mode string, d time.Duration) float64 {
	c := catalogfixture.New(t, "Bench", trustBenchProducts)
	app, st, org, skus := c.App, c.Store, c.Org, c.SKUs
	key := apikey.New("")
	client, err := st.Accounts().CreateClient(org, store.NewClient{Name: "bench", Scopes: enrichment.Scopes, KeyHash: key.Hash, KeyPrefix: key.Shown})
	if err != nil {
		t.Fatal(err)
	}
	if mode != "none" {
		earnPolicy(t, app, st, org, client, skus[:20])
		endProbation(t, app, st, org, client, skus[20:120])
	}
	// the trickle's products are set apart, so the writers never compete
	// with it or supersede it
	trickle, skus := skus[120:2120], skus[2120:]
	worker := jobs.NewTrust(app)
	worker.Start()
	defer worker.Stop()

	var stored atomic.Int64
	start := clock.Wall()
	var wg sync.WaitGroup
	for w := range trustBenchWriters {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			mine := skus[w*len(skus)/trustBenchWriters : (w+1)*len(skus)/trustBenchWriters]
			for n := 0; time.Since(start) < d; n++ {
				batch := make([]enrichment.Proposal, trustBenchBatch)
				for i := range batch {
					k := (n*trustBenchBatch + i) % len(mine)
					confidence := 50
					if k%2 == 0 && mode != "trickle" {
						confidence = 90
					}
					name := fmt.Sprintf("Vendor title %d for %s", rng.IntN(1000), mine[k])
					batch[i] = enrichment.Proposal{SKU: mine[k], Confidence: &confidence}
					batch[i].Fields.Name = &name
				}
				res, err := st.Proposals().Submit(org, client, batch, store.SubmitOptions{ExternalID: fmt.Sprint("bench-", w, "-", n)})
				if err != nil {
					t.Error(err)
					return
				}
				stored.Add(int64(len(res)))
			}
		})
	}
	if mode == "trickle" {
		wg.Go(func() {
			for n := 0; time.Since(start) < d && (n+1)*20 <= len(trickle); n++ {
				batch := make([]enrichment.Proposal, 20)
				for i := range batch {
					confidence, name := 95, "Trickled title for "+trickle[n*20+i]
					batch[i] = enrichment.Proposal{SKU: trickle[n*20+i], Confidence: &confidence}
					batch[i].Fields.Name = &name
				}
				if _, err := st.Proposals().Submit(org, client, batch, store.SubmitOptions{}); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(250 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	rate := float64(stored.Load()) / elapsed.Seconds()
	if mode == "none" {
		return rate
	}
	var accepted int
	if err := app.DB().NewQuery(`SELECT COUNT(*) FROM revisions WHERE decidedBy = 'policy'`).Row(&accepted); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %.0f proposals/s stored by the writers; the policy accepted %d during the load (%.0f/s)", mode, rate, accepted,
		float64(accepted)/elapsed.Seconds())
	// the policy's last decisions, then the latencies from the revisions
	qualifying := `status = 'pending' AND confidence >= 90`
	deadline := clock.Wall().Add(120 * time.Second)
	for clock.Wall().Before(deadline) {
		var left int
		if err := app.DB().NewQuery(`SELECT COUNT(*) FROM revisions WHERE ` + qualifying).Row(&left); err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	var lat []float64
	err = app.DB().NewQuery(`SELECT (julianday(reviewedAt) - julianday(created)) * 86400000.0 FROM revisions
		WHERE decidedBy = 'policy'`).Column(&lat)
	if err != nil {
		t.Fatal(err)
	}
	var pending int
	_ = app.DB().NewQuery(`SELECT COUNT(*) FROM revisions WHERE ` + qualifying).Row(&pending)
	slices.Sort(lat)
	q := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))] / 1000
	}
	t.Logf("%s: storage to policy decision over %d revisions (%d qualifying left pending): p50 %.2f s, p95 %.2f s, max %.2f s",
		mode, len(lat), pending, q(0.5), q(0.95), q(1))
	if mode == "trickle" && q(0.95) > 10 {
		t.Errorf("p95 %.2f s under the 4-writer load, the contract says within 10 s", q(0.95))
	}
	return rate
}

// endProbation has the policy accept proposals of client on skus and a
// person confirm its audits until 20 are closed: the probation of its
// version (none: the bench sends no model) is over before the load.
func endProbation(t *testing.T, app core.App, st *store.Store, org enrichment.Org, client int64, skus []string) {
	batch := make([]enrichment.Proposal, len(skus))
	for i, sku := range skus {
		confidence, name := 95, "Probation title for "+sku
		batch[i] = enrichment.Proposal{SKU: sku, Confidence: &confidence}
		batch[i].Fields.Name = &name
	}
	if _, err := st.Proposals().Submit(org, client, batch, store.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	worker := jobs.NewTrust(app)
	for closed, round := 0, 0; closed < enrichment.ProbationAudits; round++ {
		if round > 100 {
			t.Fatalf("%d audits closed, want %d", closed, enrichment.ProbationAudits)
		}
		worker.Step()
		audits, err := app.FindRecordsByFilter(schema.Revisions, "audit = 'pending'", "", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, rev := range audits {
			rev.Set("audit", enrichment.AuditConfirmed)
			if err := app.Save(rev); err != nil {
				t.Fatal(err)
			}
			closed++
		}
	}
}

// earnPolicy has people accept 20 proposals of client and creates its
// active policy on name and description at confidence 80.
func earnPolicy(t *testing.T, app core.App, st *store.Store, org enrichment.Org, client int64, skus []string) {
	batch := make([]enrichment.Proposal, len(skus))
	for i, sku := range skus {
		confidence, name := 95, "Earned title for "+sku
		batch[i] = enrichment.Proposal{SKU: sku, Confidence: &confidence}
		batch[i].Fields.Name = &name
	}
	res, err := st.Proposals().Submit(org, client, batch, store.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		rev, err := app.FindRecordById(schema.Revisions, store.FormatID(*r.RevisionID))
		if err != nil {
			t.Fatal(err)
		}
		rev.Set("status", enrichment.StatusAccepted)
		if err := app.Save(rev); err != nil {
			t.Fatal(err)
		}
	}
	col, err := app.FindCollectionByNameOrId(schema.TrustPolicies)
	if err != nil {
		t.Fatal(err)
	}
	p := core.NewRecord(col)
	for k, v := range map[string]any{"organization": string(org), "apiClient": store.FormatID(client),
		"fields": []string{"name", "description"}, "minConfidence": 80, "minReviewed": 20, "targetPrecision": 0.85, "auditRate": 0.05, "enabled": true} {
		p.Set(k, v)
	}
	if err := app.Save(p); err != nil {
		t.Fatal(err)
	}
	if p.GetString("state") != enrichment.PolicyActive {
		t.Fatalf("policy %s: %s", p.GetString("state"), p.GetString("stateReason"))
	}
}
