package store

import (
	"encoding/json/jsontext"
	"fmt"
	"maps"
	"strconv"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// Every product holds its completeness, gaps and gap rank (schema/gaps.go).
// The import computes them for the rows it writes; every other writer of
// products refreshes them in its own transaction: a set of decisions and a
// rollback (writeProductValues), the products hook (the dashboard and the
// records API) and the options hook (a template's options changed: every
// product of the template).

// gapChunk is how many products a refresh reads and writes at once.
const gapChunk = 500

// Gaps is a product's completeness as its row stores it.
type Gaps struct {
	Completeness int
	Gaps         string // JSON
	Rank         string // "" without a gap
}

// StoredGaps renders c as a product row stores it.
func StoredGaps(c enrichment.Completeness) Gaps {
	// note: by hand: the import renders one a product, and encoding/json
	// took a tenth of what the gaps cost it
	gaps := make([]byte, 0, 64)
	gaps = append(gaps, '[')
	for i, g := range c.Gaps {
		if i > 0 {
			gaps = append(gaps, ',')
		}
		gaps = appendJSONString(gaps, g)
	}
	g := Gaps{Completeness: c.Completeness, Gaps: string(append(gaps, ']'))}
	if len(c.Gaps) > 0 {
		g.Rank = c.First.Key()
	}
	return g
}

// slotRow is what of a product its gaps are computed from, with the gaps
// it holds.
type slotRow struct {
	ID           int64  `db:"id"`
	Active       bool   `db:"active"`
	Template     string `db:"attributeTemplate"`
	Description  string `db:"description"`
	Images       int    `db:"images"`
	Attributes   []byte `db:"attributes"`
	Completeness int    `db:"completeness"`
	Gaps         string `db:"gaps"`
	Rank         string `db:"gapRank"`
}

func (r slotRow) values() enrichment.SlotValues {
	return enrichment.SlotValues{Description: r.Description, Images: r.Images, Attributes: decodeAttributes(r.Attributes)}
}

// slotColumns reads a slotRow; images as their number.
const slotColumns = `CAST([[id]] AS INTEGER) AS [[id]], [[active]], [[attributeTemplate]], [[description]],
	COALESCE(json_array_length([[images]]), 0) AS [[images]], [[attributes]],
	COALESCE([[completeness]], 0) AS [[completeness]], COALESCE([[gaps]], '') AS [[gaps]], [[gapRank]]`

// RefreshGaps computes the gaps of org's products ids as the products now
// are and writes those that changed, in the caller's transaction.
func (s *Catalog) RefreshGaps(org enrichment.Org, ids []int64) error {
	for start := 0; start < len(ids); start += gapChunk {
		if err := s.refreshGapChunk(org, ids[start:min(start+gapChunk, len(ids))]); err != nil {
			return err
		}
	}
	return nil
}

func (s *Catalog) refreshGapChunk(org enrichment.Org, ids []int64) error {
	rows, err := s.slotRows(org, ids)
	if err != nil || len(rows) == 0 {
		return err
	}
	var templates []string
	for _, r := range rows {
		templates = append(templates, r.Template)
	}
	slots, err := s.slotOptionsOf(org, unique(templates))
	if err != nil {
		return err
	}
	var q *dbx.Query
	for _, r := range rows {
		g := StoredGaps(enrichment.CompletenessOf(r.values(), slots[r.Template]))
		if g == (Gaps{Completeness: r.Completeness, Gaps: r.Gaps, Rank: r.Rank}) {
			continue
		}
		if q == nil {
			// note: no column a trigger watches, and not updated: a product
			// whose template changed is not a change of the product
			q = s.db().NewQuery(`UPDATE {{` + schema.Products + `}} SET [[completeness]] = {:completeness},
				[[gaps]] = {:gaps}, [[gapRank]] = {:rank} WHERE [[id]] = {:id}`).Prepare()
			defer q.Close()
		}
		_, err := q.Bind(dbx.Params{"id": FormatID(r.ID), "completeness": g.Completeness, "gaps": g.Gaps, "rank": g.Rank}).Execute()
		if err != nil {
			return fmt.Errorf("write the gaps of product %d: %w", r.ID, err)
		}
	}
	return nil
}

// slotRows reads what fills the slots of org's products ids (at most a
// chunk of them).
func (s *Catalog) slotRows(org enrichment.Org, ids []int64) ([]slotRow, error) {
	var rows []slotRow
	err := s.db().NewQuery(`SELECT ` + slotColumns + ` FROM {{` + schema.Products + `}}
		WHERE +[[organization]] = {:org} AND [[id]] IN (SELECT CAST([[value]] AS TEXT) FROM json_each({:ids}))`).
		Bind(dbx.Params{"org": string(org), "ids": sqlparts.InValues(ids)}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read the slots of products of organization %s: %w", org, err)
	}
	return rows, nil
}

// eachSlotRow calls fn with the slot row of each of org's products ids.
func (s *Catalog) eachSlotRow(org enrichment.Org, ids []int64, fn func(slotRow)) error {
	for start := 0; start < len(ids); start += gapChunk {
		rows, err := s.slotRows(org, ids[start:min(start+gapChunk, len(ids))])
		if err != nil {
			return err
		}
		for _, r := range rows {
			fn(r)
		}
	}
	return nil
}

// SlotOptionsOf is slotOptionsOf for the import, which computes the gaps
// of the rows it writes.
func (s *Catalog) SlotOptionsOf(org enrichment.Org, templates []string) (map[string][]enrichment.SlotOption, error) {
	return s.slotOptionsOf(org, unique(templates))
}

// slotOptionsOf reads the slot options of org's templates, by template id.
func (s *Catalog) slotOptionsOf(org enrichment.Org, templates []string) (map[string][]enrichment.SlotOption, error) {
	if len(templates) == 0 {
		return map[string][]enrichment.SlotOption{}, nil
	}
	return s.readSlotOptions(org, sqlparts.In("template", templates))
}

// slotsCache keeps every organization's slot options by template, for
// the completeness of the products its answers show.
var slotsCache = cacheKind[enrichment.Org, map[string][]enrichment.SlotOption]{name: "enrichmentSlots", limit: 1_000}

// allSlotOptions is every template's slot options of org, cached while its
// generation holds (every option's change moves it).
func (s *Catalog) allSlotOptions(org enrichment.Org) (map[string][]enrichment.SlotOption, error) {
	return cachedOf(s, slotsCache, org, org, func() (map[string][]enrichment.SlotOption, error) {
		return s.readSlotOptions(org, nil)
	})
}

// readSlotOptions reads org's options shown on the website that match
// where (all with nil), as each template's slots.
func (s *Catalog) readSlotOptions(org enrichment.Org, where dbx.Expression) (map[string][]enrichment.SlotOption, error) {
	var rows []optionRow
	err := s.db().Select(optionColumns...).From(schema.AttributeOptions).
		Where(dbx.HashExp{"organization": string(org), "showOnWebsite": true}).AndWhere(where).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read the slots of templates of organization %s: %w", org, err)
	}
	options := map[string][]enrichment.Option{}
	for _, r := range rows {
		options[r.Template] = append(options[r.Template], r.option())
	}
	out := make(map[string][]enrichment.SlotOption, len(options))
	for t, opts := range options {
		out[t] = enrichment.SlotOptions(opts)
	}
	return out, nil
}

// RefreshTemplateGaps writes the gaps index rows of every product of org's
// template again: its options changed. note: a chunk at a time by id, so
// a template of 1M products is 2,000 chunks of the same cost
func (s *Catalog) RefreshTemplateGaps(org enrichment.Org, template string) error {
	return s.refreshWhere(org, " AND [[attributeTemplate]] = {:template}", dbx.Params{"template": template}, nil)
}

// RefreshAllGaps writes the gaps index rows of every product of every
// organization (a new index on an older data folder), calling progress
// with the number of products done.
func (s *Catalog) RefreshAllGaps(progress func(done int)) error {
	orgs, err := s.Accounts().Organizations()
	if err != nil {
		return err
	}
	done := 0
	for _, org := range orgs {
		err := s.refreshWhere(org, "", nil, func(n int) {
			done += n
			if progress != nil {
				progress(done)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// refreshWhere refreshes the rows of org's products that match where (all
// without), in id order a chunk at a time. note: the active products, then
// the others, each a seek on the export index from the last chunk's id:
// without active in the condition every chunk scanned the organization
func (s *Catalog) refreshWhere(org enrichment.Org, where string, params dbx.Params, progress func(n int)) error {
	for _, active := range []bool{true, false} {
		after := int64(0)
		for {
			var ids []int64
			bound := dbx.Params{"org": string(org), "active": active, "after": after}
			maps.Copy(bound, params)
			err := s.db().NewQuery(`SELECT CAST([[id]] AS INTEGER) FROM {{` + schema.Products + `}} INDEXED BY ` + schema.IdxProductsExport + `
				WHERE [[organization]] = {:org} AND [[active]] = {:active} AND CAST([[id]] AS INTEGER) > {:after}` + where + `
				ORDER BY CAST([[id]] AS INTEGER) LIMIT ` + strconv.Itoa(gapChunk)).Bind(bound).Column(&ids)
			if err != nil {
				return fmt.Errorf("list products of organization %s: %w", org, err)
			}
			if len(ids) == 0 {
				break
			}
			if err := s.refreshGapChunk(org, ids); err != nil {
				return err
			}
			if progress != nil {
				progress(len(ids))
			}
			after = ids[len(ids)-1]
		}
	}
	return nil
}

// completenessOf measures assembled products (they carry what fills their
// slots) against org's slot options.
func (s *Catalog) completenessOf(org enrichment.Org, rows []ProductRow, products []enrichment.Product) error {
	if len(rows) == 0 {
		return nil
	}
	slots, err := s.allSlotOptions(org)
	if err != nil {
		return err
	}
	for i, r := range rows {
		p := &products[i]
		v := enrichment.SlotValues{Description: p.Description, Images: len(p.Images), Attributes: decodeAttributes(r.Attributes)}
		c := enrichment.CompletenessOf(v, slots[r.AttributeTemplate])
		p.Completeness, p.Gaps = c.Completeness, c.Gaps
	}
	return nil
}

// MeanCompleteness is the mean completeness of org's active products and
// their number (0 and 0 without any): those off the gaps index are complete.
func (s *Catalog) MeanCompleteness(org enrichment.Org) (float64, int, error) {
	active, err := s.CountActiveProducts(org)
	if err != nil || active == 0 {
		return 0, active, err
	}
	var sum struct {
		Rows  int   `db:"n"`
		Total int64 `db:"total"`
	}
	err = s.db().NewQuery(`SELECT COUNT(*) AS [[n]], COALESCE(SUM([[completeness]]), 0) AS [[total]]
		FROM {{` + schema.Products + `}} INDEXED BY ` + schema.IdxProductsGaps + `
		WHERE [[organization]] = {:org} AND [[active]] = 1 AND [[gapRank]] != ''`).
		Bind(dbx.Params{"org": string(org)}).One(&sum)
	if err != nil {
		return 0, 0, fmt.Errorf("sum the completeness of organization %s: %w", org, err)
	}
	return float64(sum.Total+int64(100*(active-sum.Rows))) / float64(active), active, nil
}

// appendJSONString appends s quoted as JSON: as it is when nothing in it
// needs escaping (slot names nearly always), else by jsontext.
func appendJSONString(b []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			b, _ = jsontext.AppendQuote(b, s)
			return b
		}
	}
	return append(append(append(b, '"'), s...), '"')
}
