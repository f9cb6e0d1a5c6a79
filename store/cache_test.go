package store

import "testing"

func TestCacheStaysWithinItsWeight(t *testing.T) {
	const limit = 10
	kind := cacheKind[string, []int64]{name: "test", limit: limit, weigh: func(v []int64) int { return len(v) }}
	c := &cache[string, []int64]{kind: kind, values: map[string]loaded[[]int64]{}}
	half := func() loaded[[]int64] { return loaded[[]int64]{value: make([]int64, limit/2)} }
	c.put("a", half())
	c.put("a", half()) // a replacement counts once
	c.put("b", half())
	if c.weight != limit || len(c.values) != 2 {
		t.Fatalf("after two halves: weight %d in %d entries", c.weight, len(c.values))
	}
	c.refresh("b", make([]int64, 1)) // a refreshed value weighs what it weighs now
	if c.weight != limit/2+1 {
		t.Fatalf("after a refresh: weight %d", c.weight)
	}
	c.put("c", loaded[[]int64]{value: make([]int64, limit/2)}) // one over: starts afresh
	if _, ok := c.get("a"); ok || c.weight != limit/2 || len(c.values) != 1 {
		t.Fatalf("over the bound: weight %d in %d entries", c.weight, len(c.values))
	}
	c.refresh("gone", make([]int64, 3)) // refreshing what is not kept keeps nothing
	if _, ok := c.get("gone"); ok || c.weight != limit/2 {
		t.Fatalf("refresh of a missing key: weight %d", c.weight)
	}
}
