package dbversion

import "testing"

func TestCacheServesOnlyTheVersionItWasFilledAt(t *testing.T) {
	v1, v2 := Version{counter: 1}, Version{header: walIndexHeader{2: 7}}
	c := NewCache[string, int](2)
	if _, ok := c.Get(v1, "a"); ok {
		t.Fatal("an empty cache hit")
	}
	c.Put(v1, "a", 10)
	if v, ok := c.Get(v1, "a"); !ok || v != 10 {
		t.Fatalf("Get(v1, a) = %d, %v; want 10, true", v, ok)
	}
	if _, ok := c.Get(v2, "a"); ok {
		t.Fatal("a value was served at a later version")
	}
	c.Put(v2, "b", 20)
	if _, ok := c.Get(v2, "a"); ok {
		t.Fatal("a value of version 1 survived a put at version 2")
	}
	c.Put(v2, "c", 30)
	c.Put(v2, "d", 40) // over the limit of 2: starts afresh
	if _, ok := c.Get(v2, "b"); ok {
		t.Fatal("the cache grew past its limit")
	}
	if v, ok := c.Get(v2, "d"); !ok || v != 40 {
		t.Fatalf("Get(v2, d) = %d, %v; want 40, true", v, ok)
	}
}
