package store

import (
	"fmt"
	"sync"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// exportPages is where each page of an organization's full export starts,
// so a deep page is a seek on the export index instead of an OFFSET walk
// over every product before it, and the total needs no COUNT.
type exportPages struct {
	generation int64 // of the organization, when computed
	total      int
	starts     []int64 // numeric id of the first product of each page
}

type exportPagesKey struct {
	org      enrichment.Org
	pageSize int
}

// exportPagesCache keeps an app's exportPages while their generation holds.
type exportPagesCache struct {
	mu     sync.Mutex
	pages  map[exportPagesKey]exportPages
	starts int // page starts held, over all entries
}

// maxCachedStarts bounds the cache's memory (8 bytes a start): every page
// size from 1 to 500 of a 100k-product catalog is 0.7 M starts.
const maxCachedStarts = 1 << 20

func exportPagesOf(app core.App) *exportPagesCache {
	return app.Store().GetOrSet("enrichmentExportPages", func() any {
		return &exportPagesCache{pages: map[exportPagesKey]exportPages{}}
	}).(*exportPagesCache)
}

func (c *exportPagesCache) get(k exportPagesKey, generation int64) (exportPages, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pages[k]
	return p, ok && p.generation == generation
}

func (c *exportPagesCache) put(k exportPagesKey, p exportPages) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.pages[k]; ok {
		c.starts -= len(old.starts)
	}
	if c.starts+len(p.starts) > maxCachedStarts {
		clear(c.pages)
		c.starts = 0
	}
	c.pages[k] = p
	c.starts += len(p.starts)
}

// exportPagesFor returns where the pages of org's full export start, from
// the cache while org's generation holds (which every change of the export's
// products moves), else from one walk of the export index.
func (s *Store) exportPagesFor(org enrichment.Org, pageSize int) (exportPages, error) {
	generation, err := s.Generation(org)
	if err != nil {
		return exportPages{}, err
	}
	cache, key := exportPagesOf(s.app), exportPagesKey{org, pageSize}
	if p, ok := cache.get(key, generation); ok {
		return p, nil
	}
	p := exportPages{generation: generation}
	if p.total, err = s.CountActiveProducts(org); err != nil {
		return exportPages{}, err
	}
	// note: the numbering runs inside SQLite, so only one row per page
	// crosses into Go
	err = s.db().NewQuery(`SELECT [[id]] FROM (
			SELECT CAST([[id]] AS INTEGER) AS [[id]], ROW_NUMBER() OVER (ORDER BY CAST([[id]] AS INTEGER)) - 1 AS [[n]]
			FROM {{products}} INDEXED BY ` + schema.IdxProductsExport + `
			WHERE [[organization]] = {:org} AND [[active]] = 1)
		WHERE [[n]] % {:size} = 0 ORDER BY [[id]]`).
		Bind(dbx.Params{"org": string(org), "size": pageSize}).Column(&p.starts)
	if err != nil {
		return exportPages{}, fmt.Errorf("find page starts of organization %s: %w", org, err)
	}
	cache.put(key, p)
	return p, nil
}
