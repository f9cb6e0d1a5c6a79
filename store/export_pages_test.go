package store

import "testing"

func TestExportPagesCacheStaysWithinItsBound(t *testing.T) {
	c := &exportPagesCache{pages: map[exportPagesKey]exportPages{}}
	half := make([]int64, maxCachedStarts/2)
	a, b, d := exportPagesKey{"1", 1}, exportPagesKey{"1", 2}, exportPagesKey{"2", 1}
	c.put(a, exportPages{starts: half})
	c.put(a, exportPages{starts: half}) // a replacement counts once
	c.put(b, exportPages{starts: half})
	if c.starts != maxCachedStarts || len(c.pages) != 2 {
		t.Fatalf("after two halves: %d starts in %d entries", c.starts, len(c.pages))
	}
	c.put(d, exportPages{starts: make([]int64, 1)}) // one over: starts afresh
	if _, ok := c.get(a, 0); ok || c.starts != 1 || len(c.pages) != 1 {
		t.Fatalf("over the bound: %d starts in %d entries", c.starts, len(c.pages))
	}
}
