package store

import (
	"database/sql"
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

// changeRow is a row of the change feed: the change, and what the
// selection of a client's catalog is decided on before it (old*: NULL when
// the product was not in the export) and after it (NULL for an insert,
// whose product is judged as it is now). client is ” for a change every
// client sees, else the one client whose catalog's change it is.
type changeRow struct {
	Seq           int64          `db:"seq"`
	Product       string         `db:"product"`
	SKU           string         `db:"sku"`
	Change        string         `db:"change"`
	At            types.DateTime `db:"at"`
	Client        string         `db:"client"`
	Template      sql.NullString `db:"template"`
	Brand         sql.NullString `db:"brand"`
	Categories    sql.NullString `db:"categories"`
	OldTemplate   sql.NullString `db:"oldTemplate"`
	OldBrand      sql.NullString `db:"oldBrand"`
	OldCategories sql.NullString `db:"oldCategories"`
}

// Changes returns the changes numbered after `after` that client, whose
// catalog is sel, sees of org's feed: at most limit rows are read, and
// each product appears once, with the last change the rows make of it.
// For a client with a selection, a product entering it is an upsert and
// one leaving it a removal; changes of products it never selected are
// left out.
func (s *Catalog) Changes(org enrichment.Org, client int64, sel enrichment.Selection, after int64, limit int) (ChangesPage, error) {
	var rows []changeRow
	err := s.db().Select("seq", "product", "sku", "change", "at", "client", "template", "brand", "categories",
		"oldTemplate", "oldBrand", "oldCategories").From(schema.ChangesTable).
		Where(dbx.HashExp{"organization": string(org)}).AndWhere(dbx.NewExp("[[seq]] > {:after}", dbx.Params{"after": after})).
		AndWhere(dbx.In("client", "", FormatID(client))).
		OrderBy("seq").Limit(int64(limit) + 1).All(&rows)
	if err != nil {
		return ChangesPage{}, fmt.Errorf("read the change feed of organization %s: %w", org, err)
	}
	page := ChangesPage{Last: after, HasMore: len(rows) > limit, Items: []enrichment.Change{}}
	rows = rows[:min(len(rows), limit)]
	if len(rows) > 0 {
		page.Last = rows[len(rows)-1].Seq
	}
	seen, err := s.seenChanges(org, sel, rows)
	if err != nil {
		return ChangesPage{}, err
	}
	for _, c := range seen {
		page.Items = append(page.Items, enrichment.Change{ProductID: sqlparts.StoredID(c.row.Product), SKU: c.row.SKU,
			Change: c.change, At: apiTime(c.row.At)})
	}
	return page, s.measureChanges(org, page.Items)
}

// seenChange is what a client sees of a product's rows in a page: its last
// row and the change they make.
type seenChange struct {
	row    changeRow
	change string
}

// seenChanges turns a page's rows into what a client with catalog sel
// sees, in the order of each product's last row: whether the product was
// in the client's export before its first row and is after its last.
func (s *Catalog) seenChanges(org enrichment.Org, sel enrichment.Selection, rows []changeRow) ([]seenChange, error) {
	holds := func(template, brand, categories sql.NullString) bool {
		return sel.Holds(template.String, brand.String, decodeStrings([]byte(categories.String)))
	}
	now, err := s.judgedNow(org, sel, rows)
	if err != nil {
		return nil, err
	}
	type span struct{ first, last int }
	spans := map[string]*span{}
	for i, r := range rows {
		if sp, ok := spans[r.Product]; ok {
			sp.last = i
		} else {
			spans[r.Product] = &span{i, i}
		}
	}
	var out []seenChange
	for i, r := range rows {
		sp := spans[r.Product]
		if sp.last != i {
			continue
		}
		var before, inAfter bool
		switch first := rows[sp.first]; {
		case sel.Whole():
			before = true // note: every change reaches a client of the whole catalog
		case first.Client != "":
			before = first.Change == "remove"
		default:
			before = first.OldTemplate.Valid && holds(first.OldTemplate, first.OldBrand, first.OldCategories)
		}
		switch {
		case r.Change == "remove":
		case sel.Whole() || r.Client != "":
			inAfter = true
		case r.Template.Valid:
			inAfter = holds(r.Template, r.Brand, r.Categories)
		default:
			inAfter = now[r.Product]
		}
		switch {
		case inAfter:
			out = append(out, seenChange{r, "upsert"})
		case before:
			out = append(out, seenChange{r, "remove"})
		}
	}
	return out, nil
}

// judgedNow tells, for the products of rows written without what the
// selection is decided on (inserts), whether sel selects them as they are
// now; nothing for the whole catalog.
func (s *Catalog) judgedNow(org enrichment.Org, sel enrichment.Selection, rows []changeRow) (map[string]bool, error) {
	out := map[string]bool{}
	if sel.Whole() {
		return out, nil
	}
	var ids []string
	for _, r := range rows {
		if r.Change == "upsert" && r.Client == "" && !r.Template.Valid {
			ids = append(ids, r.Product)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	var selected []string
	err := s.db().Select("id").From(schema.Products).Where(sqlparts.ByIDsOf(org)).
		AndWhere(sqlparts.In("id", unique(ids))).AndWhere(dbx.HashExp{"active": true}).
		AndWhere(selectionExp(sel, "")).Column(&selected)
	if err != nil {
		return nil, fmt.Errorf("select the new products of the change feed: %w", err)
	}
	for _, id := range selected {
		out[id] = true
	}
	return out, nil
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

// ChangesBounds are org's change feed's horizon, the last sequence number
// purged (a reader positioned before it may have missed changes), and its
// head, the number of org's newest change (the horizon when it has none
// left): no cursor the feed issued to org is past it. note: org's own,
// not the newest of any organization, which would let a client count
// other organizations' changes by the cursors refused.
func (s *Catalog) ChangesBounds(org enrichment.Org) (horizon, head int64, err error) {
	var b struct {
		Horizon int64 `db:"horizon"`
		Head    int64 `db:"head"`
	}
	err = s.db().NewQuery(`SELECT [[purged]] AS [[horizon]],
		MAX(COALESCE((SELECT MAX([[seq]]) FROM {{` + schema.ChangesTable + `}} WHERE [[organization]] = {:org}), 0), [[purged]]) AS [[head]]
		FROM {{` + schema.ChangesHorizonTable + `}}`).Bind(dbx.Params{"org": string(org)}).One(&b)
	if err != nil {
		return 0, 0, fmt.Errorf("read the change feed's horizon and head: %w", err)
	}
	return b.Horizon, b.Head, nil
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
