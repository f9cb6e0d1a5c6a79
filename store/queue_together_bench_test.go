package store_test

import (
	"testing"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// BenchmarkQueueTogether reads the queue's first page of 50 while five
// reviewers hold claims, and with each triage filter, at 20,000 pending:
//
//	GOTOOLCHAIN=auto go test ./store -run '^$' -bench 'Queue' -benchtime 200x
func BenchmarkQueueTogether(b *testing.B) {
	env := newQueueEnv(b)
	ids, err := env.app.FindRecordsByFilter("revisions", "status = 'pending'", "", 5, 0)
	if err != nil || len(ids) < 5 {
		b.Fatalf("pending: %d %v", len(ids), err)
	}
	for i, r := range ids {
		reviewer := reviewerFor(b, env, i)
		if _, err := env.st.Review().Claim(env.org, mustInt(b, r.Id), reviewer, clock.Now(env.app)); err != nil {
			b.Fatal(err)
		}
	}
	yes := true
	base := store.QueueQuery{Band: store.BandAny, Sort: "confidence-desc", PageSize: 50}
	for _, c := range []struct {
		name string
		edit func(q *store.QueueQuery)
	}{
		{"claims", func(q *store.QueueQuery) {}},
		{"claims-included", func(q *store.QueueQuery) { q.WithClaimed = true }},
		{"field", func(q *store.QueueQuery) { q.Field = "name" }},
		{"q", func(q *store.QueueQuery) { q.Text = "a" }},
		{"competing", func(q *store.QueueQuery) { q.Competing = &yes }},
		{"olderThan", func(q *store.QueueQuery) { q.OlderThan = 1 }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				q := base
				q.Now = clock.Now(env.app)
				c.edit(&q)
				if _, err := env.st.Review().ReviewQueue([]enrichment.Org{env.org}, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func reviewerFor(b *testing.B, env *benchEnv, i int) string {
	b.Helper()
	c, err := env.app.FindCollectionByNameOrId("reviewers")
	if err != nil {
		b.Fatal(err)
	}
	r := core.NewRecord(c)
	r.SetEmail("r" + string(rune('a'+i)) + "@example.com")
	r.SetPassword("reviewer-password")
	r.Set("organization", string(env.org))
	if err := env.app.Save(r); err != nil {
		b.Fatal(err)
	}
	return r.Id
}

func mustInt(b *testing.B, id string) int64 {
	n, err := enrichment.ParseID(id)
	if err != nil {
		b.Fatal(err)
	}
	return n
}
