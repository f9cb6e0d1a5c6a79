package store

import (
	"encoding/json/v2"
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// The gaps index (schema.GapsTable) holds a row for each active product
// with a gap. Every writer of products refreshes the rows of the products
// it wrote in its own transaction: the import per batch, a set of
// decisions and a rollback (writeProductValues), the products hook (the
// dashboard and the records API) and the options hook (a template's
// options changed: every product of the template). A trigger forgets
// deleted products.

// gapChunk is how many products a refresh reads and writes at once.
const gapChunk = 500

// GapSource is what of a product its row in the gaps index is made of.
type GapSource struct {
	ID         int64
	Active     bool
	Template   string // id, "" for none
	Brand      string // id, "" for none
	Categories string // JSON, as stored
	Values     enrichment.SlotValues
}

// slotRow is a GapSource as read from the products.
type slotRow struct {
	ID          int64  `db:"id"`
	Active      bool   `db:"active"`
	Template    string `db:"attributeTemplate"`
	Brand       string `db:"brand"`
	Categories  string `db:"categories"`
	Description string `db:"description"`
	Images      int    `db:"images"`
	Attributes  []byte `db:"attributes"`
}

func (r slotRow) values() enrichment.SlotValues {
	return enrichment.SlotValues{Description: r.Description, Images: r.Images, Attributes: decodeAttributes(r.Attributes)}
}

func (r slotRow) source() GapSource {
	return GapSource{ID: r.ID, Active: r.Active, Template: r.Template, Brand: r.Brand, Categories: r.Categories, Values: r.values()}
}

// slotColumns reads a slotRow; images as their number.
const slotColumns = `CAST([[id]] AS INTEGER) AS [[id]], [[active]], [[attributeTemplate]], [[brand]],
	COALESCE([[categories]], '[]') AS [[categories]], [[description]],
	COALESCE(json_array_length([[images]]), 0) AS [[images]], [[attributes]]`

// RefreshGaps writes the gaps index rows of org's products ids as the
// products now are, in the caller's transaction.
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
	if err != nil {
		return err
	}
	sources := make([]GapSource, len(rows))
	for i, r := range rows {
		sources[i] = r.source()
	}
	return s.WriteGaps(org, sources, true)
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

// WriteGaps writes the gaps index rows of products (at most a chunk of
// them, all of org), in the caller's transaction: those active with a gap
// get a row. With replace their rows are forgotten first; without, none
// of them may have one (new products). note: one INSERT from a JSON list
// for the chunk: a prepared INSERT a row cost the import a third of its
// speed with the reads back
func (s *Catalog) WriteGaps(org enrichment.Org, products []GapSource, replace bool) error {
	if replace && len(products) > 0 {
		ids := make([]int64, len(products))
		for i, p := range products {
			ids[i] = p.ID
		}
		if _, err := s.db().NewQuery(`DELETE FROM {{` + schema.GapsTable + `}}
			WHERE [[product]] IN (SELECT [[value]] FROM json_each({:ids}))`).Bind(dbx.Params{"ids": sqlparts.InValues(ids)}).Execute(); err != nil {
			return fmt.Errorf("forget the gaps of products of organization %s: %w", org, err)
		}
	}
	var templates []string
	for _, p := range products {
		if p.Active && p.Template != "" {
			templates = append(templates, p.Template)
		}
	}
	slots, err := s.slotOptionsOf(org, unique(templates))
	if err != nil {
		return err
	}
	rows := make([]any, 0, len(products))
	for _, p := range products {
		if !p.Active {
			continue
		}
		c := enrichment.CompletenessOf(p.Values, slots[p.Template])
		if len(c.Gaps) == 0 {
			continue
		}
		gaps, _ := json.Marshal(c.Gaps) // note: strings always encode
		categories := p.Categories
		if categories == "" {
			categories = "[]"
		}
		rows = append(rows, []any{p.ID, p.Template, p.Brand, categories, c.First.Class, c.First.Priority, c.First.Name,
			c.Completeness, string(gaps)})
	}
	if len(rows) == 0 {
		return nil
	}
	list, err := json.Marshal(rows)
	if err != nil {
		return fmt.Errorf("encode the gaps of products of organization %s: %w", org, err)
	}
	_, err = s.db().NewQuery(`INSERT INTO {{` + schema.GapsTable + `}} ([[product]], [[organization]], [[template]],
		[[brand]], [[categories]], [[class]], [[priority]], [[name]], [[completeness]], [[gaps]])
		SELECT [[value]] ->> 0, {:org}, [[value]] ->> 1, [[value]] ->> 2, [[value]] ->> 3, [[value]] ->> 4,
		[[value]] ->> 5, [[value]] ->> 6, [[value]] ->> 7, [[value]] ->> 8 FROM json_each({:rows})`).
		Bind(dbx.Params{"org": string(org), "rows": string(list)}).Execute()
	if err != nil {
		return fmt.Errorf("write the gaps of products of organization %s: %w", org, err)
	}
	return nil
}

// slotOptionsOf reads the slot options of org's templates, by template id.
func (s *Catalog) slotOptionsOf(org enrichment.Org, templates []string) (map[string][]enrichment.SlotOption, error) {
	out := map[string][]enrichment.SlotOption{}
	if len(templates) == 0 {
		return out, nil
	}
	var rows []optionRow
	err := s.db().Select(optionColumns...).From(schema.AttributeOptions).
		Where(dbx.HashExp{"organization": string(org), "showOnWebsite": true}).
		AndWhere(sqlparts.In("template", templates)).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read the slots of templates of organization %s: %w", org, err)
	}
	return slotOptionsByTemplate(rows), nil
}

func slotOptionsByTemplate(rows []optionRow) map[string][]enrichment.SlotOption {
	options := map[string][]enrichment.Option{}
	for _, r := range rows {
		options[r.Template] = append(options[r.Template], r.option())
	}
	out := make(map[string][]enrichment.SlotOption, len(options))
	for t, opts := range options {
		out[t] = enrichment.SlotOptions(opts)
	}
	return out
}

// slotsCache keeps every organization's slot options by template, for
// the completeness of the products its answers show.
var slotsCache = cacheKind[enrichment.Org, map[string][]enrichment.SlotOption]{name: "enrichmentSlots", limit: 1_000}

// allSlotOptions is every template's slot options of org, cached while its
// generation holds (every option's change moves it).
func (s *Catalog) allSlotOptions(org enrichment.Org) (map[string][]enrichment.SlotOption, error) {
	return cachedOf(s, slotsCache, org, org, func() (map[string][]enrichment.SlotOption, error) {
		var rows []optionRow
		err := s.db().Select(optionColumns...).From(schema.AttributeOptions).
			Where(dbx.HashExp{"organization": string(org), "showOnWebsite": true}).All(&rows)
		if err != nil {
			return nil, fmt.Errorf("read the slots of organization %s: %w", org, err)
		}
		return slotOptionsByTemplate(rows), nil
	})
}

// RefreshTemplateGaps writes the gaps index rows of every product of org's
// template again: its options changed. note: a chunk at a time by id, so
// a template of 1M products is 2,000 chunks of the same cost
func (s *Catalog) RefreshTemplateGaps(org enrichment.Org, template string) error {
	return s.refreshWhere(org, dbx.HashExp{"attributeTemplate": template}, nil)
}

// RefreshAllGaps writes the gaps index rows of every product of every
// organization (a new index on an older data folder), calling progress
// with the number of products done.
func (s *Catalog) RefreshAllGaps(progress func(done int)) error {
	var orgs []string
	if err := s.db().Select("id").From("organizations").OrderBy("id").Column(&orgs); err != nil {
		return fmt.Errorf("list organizations: %w", err)
	}
	done := 0
	for _, org := range orgs {
		err := s.refreshWhere(enrichment.Org(org), nil, func(n int) {
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
// without), in id order a chunk at a time.
func (s *Catalog) refreshWhere(org enrichment.Org, where dbx.Expression, progress func(n int)) error {
	after := int64(0)
	for {
		var ids []int64
		q := s.db().Select("CAST([[id]] AS INTEGER)").From(schema.Products).
			Where(dbx.HashExp{"organization": string(org)}).
			AndWhere(dbx.NewExp("CAST([[id]] AS INTEGER) > {:after}", dbx.Params{"after": after}))
		if where != nil {
			q = q.AndWhere(where)
		}
		if err := q.OrderBy("CAST([[id]] AS INTEGER)").Limit(gapChunk).Column(&ids); err != nil {
			return fmt.Errorf("list products of organization %s: %w", org, err)
		}
		if len(ids) == 0 {
			return nil
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

// MeanCompleteness is the mean completeness of org's active products (0
// without any): those without a row in the index are complete.
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
		FROM {{` + schema.GapsTable + `}} INDEXED BY ` + schema.IdxGapsOrder + ` WHERE [[organization]] = {:org}`).
		Bind(dbx.Params{"org": string(org)}).One(&sum)
	if err != nil {
		return 0, 0, fmt.Errorf("sum the completeness of organization %s: %w", org, err)
	}
	return float64(sum.Total+int64(100*(active-sum.Rows))) / float64(active), active, nil
}
