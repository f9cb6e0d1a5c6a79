package store

import (
	"sync"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/pocketbase/core"
)

// The one way this service caches: every cached answer belongs to one
// organization and is kept with that organization's generation at the
// moment it was computed (generations.go). It is served only while the
// generation has not moved, so whatever write path changes what the answer
// is built from must move the generation (generations_test.go lists them).
// Nothing outside the store keeps a cache of its own.

// cacheKind declares one kind of cached answer: its name in the app's store,
// its bound, and what each value weighs against the bound (1 when weigh is
// nil). A full cache starts afresh, so keys that callers choose cannot grow
// it without bound.
type cacheKind[K comparable, V any] struct {
	name  string
	limit int
	weigh func(V) int
}

// loaded is a value with the organization it belongs to and that
// organization's generation read before it was computed; until, when set,
// is a moment after which it is computed again whatever the generation.
type loaded[V any] struct {
	value      V
	org        enrichment.Org
	generation int64
	until      time.Time
}

// cache holds an app's values of one kind.
type cache[K comparable, V any] struct {
	kind   cacheKind[K, V]
	mu     sync.RWMutex
	values map[K]loaded[V]
	weight int
}

func (k cacheKind[K, V]) of(app core.App) *cache[K, V] {
	return app.Store().GetOrSet(k.name, func() any {
		return &cache[K, V]{kind: k, values: map[K]loaded[V]{}}
	}).(*cache[K, V])
}

func (k cacheKind[K, V]) weightOf(v V) int {
	if k.weigh == nil {
		return 1
	}
	return k.weigh(v)
}

func (c *cache[K, V]) get(key K) (loaded[V], bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	l, ok := c.values[key]
	return l, ok
}

func (c *cache[K, V]) put(key K, l loaded[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.values[key]; ok {
		c.weight -= c.kind.weightOf(old.value)
	}
	w := c.kind.weightOf(l.value)
	if c.weight+w > c.kind.limit {
		clear(c.values)
		c.weight = 0
	}
	c.values[key] = l
	c.weight += w
}

// refresh replaces the value kept for key, if any, keeping what it was
// loaded at: for a change that moves no generation but that the cached value
// should show.
func (c *cache[K, V]) refresh(key K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.values[key]; ok {
		c.weight += c.kind.weightOf(v) - c.kind.weightOf(l.value)
		l.value = v
		c.values[key] = l
	}
}

// cached answers key from app's cache of kind while the generation of the
// organization its value belongs to holds (and, when it has an until, while
// now is before it);
// otherwise load computes it afresh and it is kept. Inside a transaction it
// always loads: the transaction may hold writes that the cache has not seen.
func cached[K comparable, V any](a area, kind cacheKind[K, V], key K, now time.Time, load func() (loaded[V], error)) (V, error) {
	s := a.shared()
	if s.app.IsTransactional() {
		l, err := load()
		return l.value, err
	}
	c := kind.of(s.app)
	if l, ok := c.get(key); ok && (l.until.IsZero() || now.Before(l.until)) {
		current, err := s.Generation(l.org)
		if err != nil {
			var zero V
			return zero, err
		}
		if current == l.generation {
			return l.value, nil
		}
	}
	l, err := load()
	if err != nil {
		return l.value, err
	}
	c.put(key, l)
	return l.value, nil
}

// cachedOf is cached for a value known to belong to org: it reads org's
// generation, then computes the value, so a change that commits meanwhile
// leaves the value under an old generation, never a new one.
func cachedOf[K comparable, V any](a area, kind cacheKind[K, V], org enrichment.Org, key K, load func() (V, error)) (V, error) {
	s := a.shared()
	if s.app.IsTransactional() {
		return load()
	}
	// note: such a value has no until, so the moment does not matter
	return cached(s, kind, key, time.Time{}, func() (loaded[V], error) {
		generation, err := s.Generation(org)
		if err != nil {
			return loaded[V]{}, err
		}
		v, err := load()
		return loaded[V]{value: v, org: org, generation: generation}, err
	})
}
