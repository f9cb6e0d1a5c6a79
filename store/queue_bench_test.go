package store_test

// The reviewers' queue at 20,000 pending revisions (issue's goal: the
// page's first load within 0.4 s; the API's share is a few milliseconds):
//
//	GOTOOLCHAIN=auto go test ./store -run '^$' -bench 'Queue' -benchtime 200x

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
)

const queuePending = 20_000

// newQueueEnv is the bench catalog with queuePending pending name
// proposals of one client, confidences at random.
func newQueueEnv(b *testing.B) *benchEnv {
	b.Helper()
	env := newBenchEnv(b)
	rng := rand.New(rand.NewPCG(7, 7))
	for start := 0; start < queuePending; start += 1000 {
		batch := make([]enrichment.Proposal, 0, 1000)
		for i := start; i < start+1000; i++ {
			name, confidence := fmt.Sprintf("Better name %d", i), rng.IntN(101)
			batch = append(batch, enrichment.Proposal{SKU: env.skus[i%len(env.skus)], Confidence: &confidence,
				Fields: enrichment.Fields{Name: &name}})
		}
		if _, err := env.st.Proposals().Submit(env.org, env.client, batch, store.SubmitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := env.app.DB().NewQuery("ANALYZE").Execute(); err != nil {
		b.Fatal(err)
	}
	freshReaders(b, env.app)
	return env
}

// BenchmarkQueue reads the queue's first page of 50 with its band counts,
// as the reviewers' page first asks for it, and a page filtered by SKU.
func BenchmarkQueue(b *testing.B) {
	env := newQueueEnv(b)
	for _, c := range []struct {
		name string
		q    store.QueueQuery
	}{
		{"first-page", store.QueueQuery{Band: store.BandAny, Sort: "confidence-desc", PageSize: 50}},
		{"sku", store.QueueQuery{Band: store.BandAny, Sort: "confidence-desc", PageSize: 50, SKU: "1"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				q := c.q
				benchQueueNow(&q)
				page, err := env.st.Review().ReviewQueue([]enrichment.Org{env.org}, q)
				if err != nil || len(page.Items) == 0 {
					b.Fatalf("%d items, %v", len(page.Items), err)
				}
			}
		})
	}
}

// benchQueueNow sets the time a queue query is read at.
func benchQueueNow(q *store.QueueQuery) { q.Now = clock.Wall() }
