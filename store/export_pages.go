package store

import (
	"fmt"
	"strings"
	"sync"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/migrations"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// exportToken changes whenever an organization's full export (no
// modifiedSince) may have gained, lost or reordered products:
//   - changes: the triggers' counter of deletions and moves in or out of it;
//   - lastRowid: the table's largest rowid, raised by every insert anywhere;
//   - lastID: the export's largest id, raised by every active product added
//     with a new id (this also covers a VACUUM, which renumbers rowids);
//   - triggers: how many of the counter's triggers exist; if one went
//     missing, the counter cannot be trusted and nothing is cached.
type exportToken struct {
	changes, lastRowid, lastID int64
	triggers                   int
}

// exportPages is where each page of an organization's full export starts,
// so a deep page is a seek on the export index instead of an OFFSET walk
// over every product before it, and the total needs no COUNT.
type exportPages struct {
	token  exportToken
	total  int
	starts []int64 // numeric id of the first product of each page
}

type exportPagesKey struct {
	org      enrichment.Org
	pageSize int
}

// exportPagesCache keeps an app's exportPages while their token holds.
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

func (c *exportPagesCache) get(k exportPagesKey, token exportToken) (exportPages, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pages[k]
	return p, ok && p.token == token
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

var exportTokenSQL = `SELECT
	(SELECT COALESCE(MAX([[version]]), 0) FROM {{` + migrations.ProductChangesTable + `}} WHERE [[organization]] = {:org}),
	(SELECT COALESCE(MAX([[rowid]]), 0) FROM {{products}}),
	(SELECT COALESCE(MAX(CAST([[id]] AS INTEGER)), 0) FROM {{products}} WHERE [[organization]] = {:org} AND [[active]] = 1),
	(SELECT COUNT(*) FROM [[sqlite_schema]] WHERE [[type]] = 'trigger' AND [[name]] IN ('` +
	strings.Join(migrations.ProductChangeTriggers, "', '") + `'))`

func (s *Store) exportToken(org enrichment.Org) (exportToken, error) {
	var t exportToken
	row := s.db().NewQuery(exportTokenSQL).Bind(dbx.Params{"org": string(org)})
	if err := row.Row(&t.changes, &t.lastRowid, &t.lastID, &t.triggers); err != nil {
		return t, fmt.Errorf("read export token of organization %s: %w", org, err)
	}
	return t, nil
}

// exportPagesFor returns where the pages of org's full export start, from
// the cache while nothing moved them, else from one walk of the export index.
func (s *Store) exportPagesFor(org enrichment.Org, pageSize int) (exportPages, error) {
	token, err := s.exportToken(org)
	if err != nil {
		return exportPages{}, err
	}
	cache, key := exportPagesOf(s.app), exportPagesKey{org, pageSize}
	if p, ok := cache.get(key, token); ok {
		return p, nil
	}
	p := exportPages{token: token}
	if p.total, err = s.CountActiveProducts(org); err != nil {
		return exportPages{}, err
	}
	// note: the numbering runs inside SQLite, so only one row per page
	// crosses into Go
	err = s.db().NewQuery(`SELECT [[id]] FROM (
			SELECT CAST([[id]] AS INTEGER) AS [[id]], ROW_NUMBER() OVER (ORDER BY CAST([[id]] AS INTEGER)) - 1 AS [[n]]
			FROM {{products}} INDEXED BY idx_products_export
			WHERE [[organization]] = {:org} AND [[active]] = 1)
		WHERE [[n]] % {:size} = 0 ORDER BY [[id]]`).
		Bind(dbx.Params{"org": string(org), "size": pageSize}).Column(&p.starts)
	if err != nil {
		return exportPages{}, fmt.Errorf("find page starts of organization %s: %w", org, err)
	}
	if token.triggers == len(migrations.ProductChangeTriggers) {
		cache.put(key, p)
	}
	return p, nil
}
