package store

import (
	"encoding/json/v2"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// revertChunk reverts rows (in that order) on the products, counting into
// res and noting in restored the products with a value restored. Products
// not in memo are read into it. Unless dryRun it writes every effect, in
// the caller's transaction, and returns the ids of the reverted revisions.
func (s *Review) revertChunk(org enrichment.Org, rows []rollbackRow, memo map[string]*enrichment.ProductValues,
	restored map[string]bool, res *RollbackResult, dryRun bool, who string, now time.Time) ([]int64, error) {
	if err := s.loadProductValues(org, rows, memo); err != nil {
		return nil, err
	}
	products := map[string]*enrichment.ProductValues{} // those with a value restored
	type outcome struct {
		row rollbackRow
		did enrichment.Reverting
	}
	outcomes := make([]outcome, 0, len(rows))
	for _, r := range rows {
		rev, err := r.accepted()
		if err != nil {
			return nil, err
		}
		var did enrichment.Reverting
		p := memo[r.Product]
		did = enrichment.Revert(rev, p) // nil: the product is gone, every place a conflict
		if p != nil && len(did.Fields) > 0 {
			products[r.Product], restored[r.Product] = p, true
		}
		res.Revisions++
		res.Restored += did.Restored()
		res.Conflicts += len(did.Conflicts)
		outcomes = append(outcomes, outcome{r, did})
	}
	if dryRun {
		return nil, nil
	}
	if err := s.writeProductValues(org, products, nil); err != nil {
		return nil, err
	}
	ids := make([]int64, len(outcomes))
	deltas := metricDeltas{}
	// note: closedAt moves too, reverted being the revision's final state
	mark := s.db().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[status]] = 'reverted', [[revertedAt]] = {:now}, [[closedAt]] = {:now},
		[[revertedBy]] = {:who}, [[revertedFields]] = {:fields}, [[revertedAttributes]] = {:attrs}, [[decisionMask]] = {:mask},
		[[updated]] = {:now} WHERE [[id]] = {:id} AND [[organization]] = {:org} AND [[status]] = 'accepted'`).Prepare()
	defer mark.Close()
	forget := s.db().NewQuery(`DELETE FROM {{` + schema.AcceptedValuesTable + `}} WHERE [[product]] = {:product}
		AND [[field]] = {:field} AND [[attribute]] = {:attribute} AND [[revision]] = {:revision} AND [[organization]] = {:org}`).Prepare()
	defer forget.Close()
	stamp := FormatTime(now)
	for i, o := range outcomes {
		ids[i] = sqlparts.StoredID(o.row.ID)
		mask := enrichment.FieldMask(o.row.Mask)
		fields, err := json.Marshal(orEmpty(o.did.Fields))
		if err != nil {
			return nil, err
		}
		var attrs any // NULL while none was restored
		if len(o.did.Attributes) > 0 {
			b, err := json.Marshal(o.did.Attributes)
			if err != nil {
				return nil, err
			}
			attrs = string(b)
		}
		done, err := mark.Bind(dbx.Params{"id": o.row.ID, "org": string(org), "now": stamp, "who": who,
			"fields": string(fields), "attrs": attrs, "mask": int(mask.Undecided())}).Execute()
		if err != nil {
			return nil, fmt.Errorf("revert revision %s: %w", o.row.ID, err)
		}
		if n, _ := done.RowsAffected(); n != 1 {
			return nil, fmt.Errorf("revert revision %s: it is no longer accepted", o.row.ID)
		}
		model, at := storedModel(o.row.Model), o.row.ReviewedAt.Time()
		deltas.add(o.row.Client, model, at, enrichment.StatusAccepted, o.row.Band, o.row.Reason, -1)
		deltas.add(o.row.Client, model, at, enrichment.StatusReverted, o.row.Band, o.row.Reason, 1)
		deltas.addFields(o.row.Client, model, at, mask, -1)
		deltas.addFields(o.row.Client, model, at, mask.Undecided(), 1)
		for _, key := range revertedKeys(o.did) {
			field, attribute, _ := enrichment.SplitKey(key)
			_, err := forget.Bind(dbx.Params{"product": o.row.Product, "field": field, "attribute": attribute,
				"revision": o.row.ID, "org": string(org)}).Execute()
			if err != nil {
				return nil, fmt.Errorf("forget the accepted %s of revision %s: %w", key, o.row.ID, err)
			}
		}
	}
	if err := s.Metrics().writeMetricDeltas(org, deltas); err != nil {
		return nil, err
	}
	return ids, s.Outbox().queueRevisionEvents(org, enrichment.EventRevisionReverted, ids)
}

// revertedKeys are the places a reverting restored: its fields other than
// attributes, and "attributes.NAME" for each attribute.
func revertedKeys(did enrichment.Reverting) []string {
	var out []string
	for _, f := range did.Fields {
		if f != "attributes" {
			out = append(out, f)
		}
	}
	for _, a := range did.Attributes {
		out = append(out, enrichment.AttributeKey(a))
	}
	return out
}

// orEmpty is v, or an empty list for nil (stored as [], not null).
func orEmpty(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// loadProductValues reads into memo the values of rows' products it does
// not hold yet; a product that no longer exists stays absent.
func (s *Review) loadProductValues(org enrichment.Org, rows []rollbackRow, memo map[string]*enrichment.ProductValues) error {
	var ids []string
	for _, r := range rows {
		if _, ok := memo[r.Product]; !ok && r.Product != "" && !slices.Contains(ids, r.Product) {
			ids = append(ids, r.Product)
		}
	}
	products, err := s.readProducts(org, ids)
	if err != nil {
		return fmt.Errorf("read the products of a rollback: %w", err)
	}
	for id, p := range products {
		memo[id] = &p.values
	}
	return nil
}

// writeProductValues writes the enrichable values of products (in id
// order) with a new update time: the change feed's trigger records each
// active one, and the organization's generation moves (cached export
// pages). A rollback restores values with it, a set of decisions applies
// them. Only the fields named in fields[id] are written (all when fields
// has no entry for the product), so a value left alone keeps its stored form.
func (s *Review) writeProductValues(org enrichment.Org, products map[string]*enrichment.ProductValues, fields map[string][]string) error {
	// note: a field bound as NULL is not written (no enrichable value is NULL)
	q := s.db().NewQuery(`UPDATE {{` + schema.Products + `}} SET [[name]] = COALESCE({:name}, [[name]]),
		[[slug]] = COALESCE({:slug}, [[slug]]), [[description]] = COALESCE({:description}, [[description]]),
		[[attributes]] = COALESCE({:attributes}, [[attributes]]), [[files]] = COALESCE({:files}, [[files]]), [[updated]] = {:now}
		WHERE [[id]] = {:id} AND [[organization]] = {:org}`).Prepare()
	defer q.Close()
	ids := slices.Sorted(maps.Keys(products)) // note: a fixed order, so the change feed lists them in one
	// note: the time of the write, not the caller's: a product written
	// again by a later chunk must move again for the change feed's trigger
	stamp := FormatTime(clock.Now(s.app))
	for _, id := range ids {
		v := products[id]
		params := dbx.Params{"id": id, "org": string(org), "now": stamp,
			"name": nil, "slug": nil, "description": nil, "attributes": nil, "files": nil}
		written, listed := fields[id]
		for _, f := range enrichment.EnrichableFields {
			if listed && !slices.Contains(written, f) {
				continue
			}
			var err error
			switch f {
			case "name":
				params[f] = v.Name
			case "slug":
				params[f] = v.Slug
			case "description":
				params[f] = v.Description
			case "attributes":
				params[f], err = attributesJSON(v.Attributes)
			case "files":
				params[f], err = StringsJSON(v.Files)
			}
			if err != nil {
				return fmt.Errorf("encode %s of product %s: %w", f, id, err)
			}
		}
		if _, err := q.Bind(params).Execute(); err != nil {
			return fmt.Errorf("write product %s: %w", id, err)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	numeric := make([]int64, len(ids))
	for i, id := range ids {
		numeric[i] = sqlparts.StoredID(id)
	}
	if err := s.Catalog().RefreshGaps(org, numeric); err != nil {
		return err
	}
	return s.BumpGeneration(org)
}
