package store

import (
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// The change feed (docs/api.md): one row per change of a product in or out
// of its organization's export, numbered in commit order. SQLite has one
// writer, so a change numbered n committed before any numbered n+1 began,
// and a reader sees every change up to the newest it sees: following the
// sequence never skips or repeats one, however many write meanwhile.
// Triggers write the rows for updates and deletions (migration 1795272900);
// the import and the products hook write them for inserts.

// ChangesRetention is how long the feed keeps its changes.
const ChangesRetention = 30 * 24 * time.Hour

// ChangesPage is one page of an organization's feed.
type ChangesPage struct {
	Items   []enrichment.Change
	Last    int64 // the sequence number of the last change the page covers
	HasMore bool
}

// Changes returns org's changes numbered after `after`, at most limit of
// them, each product once with its latest change of the page.
func (s *Catalog) Changes(org enrichment.Org, after int64, limit int) (ChangesPage, error) {
	var rows []struct {
		Seq     int64          `db:"seq"`
		Product string         `db:"product"`
		SKU     string         `db:"sku"`
		Change  string         `db:"change"`
		At      types.DateTime `db:"at"`
	}
	err := s.db().Select("seq", "product", "sku", "change", "at").From(schema.ChangesTable).
		Where(dbx.HashExp{"organization": string(org)}).AndWhere(dbx.NewExp("[[seq]] > {:after}", dbx.Params{"after": after})).
		OrderBy("seq").Limit(int64(limit) + 1).All(&rows)
	if err != nil {
		return ChangesPage{}, fmt.Errorf("read the change feed of organization %s: %w", org, err)
	}
	page := ChangesPage{Last: after, HasMore: len(rows) > limit, Items: []enrichment.Change{}}
	rows = rows[:min(len(rows), limit)]
	latest := map[string]int{} // product → index of its last row in the page
	for i, r := range rows {
		latest[r.Product] = i
	}
	for i, r := range rows {
		if latest[r.Product] == i {
			page.Items = append(page.Items, enrichment.Change{ProductID: sqlparts.StoredID(r.Product), SKU: r.SKU, Change: r.Change, At: apiTime(r.At)})
		}
		page.Last = r.Seq
	}
	return page, s.measureChanges(org, page.Items)
}

// measureChanges gives each upsert of items its product's completeness
// and gaps as the product is now (while it is active).
func (s *Catalog) measureChanges(org enrichment.Org, items []enrichment.Change) error {
	at := map[int64]int{}
	var ids []int64
	for i, c := range items {
		if c.Change == "upsert" {
			at[c.ProductID] = i
			ids = append(ids, c.ProductID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slots, err := s.allSlotOptions(org)
	if err != nil {
		return err
	}
	return s.eachSlotRow(org, ids, func(r slotRow) {
		if !r.Active {
			return
		}
		c := enrichment.CompletenessOf(r.values(), slots[r.Template])
		items[at[r.ID]].Completeness, items[at[r.ID]].Gaps = &c.Completeness, &c.Gaps
	})
}

// ChangesHorizon is the last sequence number purged: a reader positioned
// before it may have missed changes.
func (s *Catalog) ChangesHorizon() (int64, error) {
	var h int64
	if err := s.db().Select("purged").From(schema.ChangesHorizonTable).Row(&h); err != nil {
		return 0, fmt.Errorf("read the change feed's horizon: %w", err)
	}
	return h, nil
}

// PurgeChanges forgets the changes older than cutoff, and every change
// numbered before them, so what remains is the feed's tail; it returns how
// many it forgot.
func (s *Catalog) PurgeChanges(cutoff time.Time) (int64, error) {
	var purged int64
	err := s.Transaction(func(tx *Store) error {
		var last int64
		if err := tx.db().NewQuery(`SELECT COALESCE(MAX([[seq]]), 0) FROM {{` + schema.ChangesTable + `}} WHERE [[at]] < {:cutoff}`).
			Bind(dbx.Params{"cutoff": FormatTime(cutoff)}).Row(&last); err != nil {
			return fmt.Errorf("find the changes to purge: %w", err)
		}
		if last == 0 {
			return nil
		}
		res, err := tx.db().Delete(schema.ChangesTable, dbx.NewExp("[[seq]] <= {:last}", dbx.Params{"last": last})).Execute()
		if err != nil {
			return fmt.Errorf("purge changes: %w", err)
		}
		purged, _ = res.RowsAffected()
		_, err = tx.db().NewQuery(`UPDATE {{` + schema.ChangesHorizonTable + `}} SET [[purged]] = MAX([[purged]], {:last})`).
			Bind(dbx.Params{"last": last}).Execute()
		return err
	})
	return purged, err
}

// RecordUpserts writes an upsert to the feed for each of org's active
// products ids, in the caller's transaction: for inserts, which no trigger
// sees. note: organization and active are kept from the planner's index
// choice (as byIDsOf does): the products are found by id, never by scanning
// the organization's rows once per chunk (an import of 100k new products
// spent 45 s there).
func (s *Catalog) RecordUpserts(org enrichment.Org, ids []int64) error {
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		_, err := s.db().NewQuery(`INSERT INTO {{` + schema.ChangesTable + `}} ([[organization]], [[product]], [[sku]], [[change]], [[at]])
			SELECT [[organization]], [[id]], [[sku]], 'upsert', strftime('%Y-%m-%d %H:%M:%fZ', 'now') FROM {{products}}
			WHERE +[[organization]] = {:org} AND +[[active]] = 1 AND ` + sqlparts.InList("id", "ids") + `
			ORDER BY CAST([[id]] AS INTEGER)`).
			Bind(dbx.Params{"org": string(org), "ids": sqlparts.InValues(sqlparts.FormatIDs(chunk))}).Execute()
		if err != nil {
			return fmt.Errorf("record new products of organization %s in the change feed: %w", org, err)
		}
	}
	return nil
}
