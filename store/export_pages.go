package store

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// exportPages is where each page of an organization's full export starts,
// so a deep page is a seek on the export index instead of an OFFSET walk
// over every product before it, and the total needs no COUNT.
type exportPages struct {
	total  int
	starts []int64 // numeric id of the first product of each page
}

type exportPagesKey struct {
	org       enrichment.Org
	pageSize  int
	selection string // the asking client's catalog (Selection.Key)
}

// exportPagesCache keeps exportPages, bounded by the page starts held over
// all entries (8 bytes a start): every page size from 1 to 500 of a
// 100k-product catalog is 0.7 M starts.
var exportPagesCache = cacheKind[exportPagesKey, exportPages]{name: "enrichmentExportPages", limit: 1 << 20,
	weigh: func(p exportPages) int { return 1 + len(p.starts) }}

// exportPagesFor returns where the pages of org's full export start, from
// the cache while org's generation holds (which every change of the export's
// products moves), else from one walk of the export index.
func (s *Catalog) exportPagesFor(org enrichment.Org, pageSize int, sel enrichment.Selection) (exportPages, error) {
	return cachedOf(s, exportPagesCache, org, exportPagesKey{org, pageSize, sel.Key()}, func() (exportPages, error) {
		return s.findExportPages(org, pageSize, sel)
	})
}

// findExportPages walks org's export index for where the pages of the
// products sel selects start.
func (s *Catalog) findExportPages(org enrichment.Org, pageSize int, sel enrichment.Selection) (exportPages, error) {
	var p exportPages
	params := dbx.Params{"org": string(org), "size": pageSize}
	selected := andSelection(sel, "", params)
	if err := s.db().NewQuery(`SELECT COUNT(*) FROM {{products}} INDEXED BY ` + schema.IdxProductsExport + `
		WHERE [[organization]] = {:org} AND [[active]] = 1` + selected).Bind(params).Row(&p.total); err != nil {
		return exportPages{}, fmt.Errorf("count products of organization %s: %w", org, err)
	}
	// note: the numbering runs inside SQLite, so only one row per page
	// crosses into Go
	err := s.db().NewQuery(`SELECT [[id]] FROM (
			SELECT CAST([[id]] AS INTEGER) AS [[id]], ROW_NUMBER() OVER (ORDER BY CAST([[id]] AS INTEGER)) - 1 AS [[n]]
			FROM {{products}} INDEXED BY ` + schema.IdxProductsExport + `
			WHERE [[organization]] = {:org} AND [[active]] = 1` + selected + `)
		WHERE [[n]] % {:size} = 0 ORDER BY [[id]]`).Bind(params).Column(&p.starts)
	if err != nil {
		return exportPages{}, fmt.Errorf("find page starts of organization %s: %w", org, err)
	}
	return p, nil
}
