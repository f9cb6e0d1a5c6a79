package store

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"slices"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Supersession (enrichment.Supersede, docs/review.md) happens in the
// transaction that stores the newer batch, so two batches of one client,
// however concurrent, leave at most one pending proposal per field. These
// functions read the client's pending revisions and write back what
// Supersede changed.

// pendingProposals loads client's pending revisions of org for products,
// with their proposed and superseded fields, and notes each one's model in
// models (for the metric counters, which the rules need not see).
func (s *Store) pendingProposals(org enrichment.Org, client int64, products []string, models map[int64]modelKey) ([]*enrichment.ProposalState, error) {
	if len(products) == 0 {
		return nil, nil
	}
	var rows []struct {
		ID         string         `db:"id"`
		Created    types.DateTime `db:"created"`
		Product    string         `db:"product"`
		Proposed   []byte         `db:"proposed"`
		Superseded []byte         `db:"supersededFields"`
		Model      []byte         `db:"model"`
		Attrs      []byte         `db:"supersededAttributes"`
	}
	// note: the index is named because without statistics of revisions
	// SQLite prefers (organization, status) and walks every pending revision
	// of the organization (23 ms instead of 6 for a batch of 1000); the
	// literal 'pending' is what lets it use the partial index at all
	err := s.db().NewQuery(`SELECT [[id]], [[created]], [[product]], [[proposed]], [[supersededFields]],
		[[supersededAttributes]], [[model]] FROM {{revisions}} INDEXED BY ` + schema.IdxRevisionsPendingProduct + `
		WHERE [[organization]] = {:org} AND [[apiClient]] = {:client} AND [[status]] = 'pending'
		AND ` + inList("product", "products") + `
		ORDER BY CAST([[id]] AS INTEGER)`).
		Bind(dbx.Params{"org": string(org), "client": FormatID(client), "products": inValues(products)}).
		All(&rows)
	if err != nil {
		return nil, fmt.Errorf("find pending proposals of client %d: %w", client, err)
	}
	out := make([]*enrichment.ProposalState, len(rows))
	for i, r := range rows {
		out[i] = &enrichment.ProposalState{ID: storedID(r.ID), Created: r.Created.Time(), Product: r.Product, Fields: proposedNames(r.Proposed),
			Superseded: decodeStrings(r.Superseded), Status: enrichment.StatusPending,
			Attributes: proposedAttributeNames(r.Proposed), SupersededAttributes: decodeStrings(r.Attrs)}
		models[out[i].ID] = storedModel(r.Model)
	}
	return out, nil
}

// writeSuperseded stores what a batch changed of older revisions. note: a
// revision that keeps pending fields gets only its supersededFields
// written: its status, supersededBy and closedAt are in six indexes.
func (s *Store) writeSuperseded(older []*enrichment.ProposalState, now string) error {
	partly := s.db().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[supersededFields]] = {:superseded},
		[[supersededAttributes]] = {:attrs}, [[updated]] = {:now} WHERE [[id]] = {:id}`).Prepare()
	defer partly.Close()
	wholly := s.db().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[supersededFields]] = {:superseded},
		[[supersededAttributes]] = {:attrs}, [[status]] = {:status}, [[supersededBy]] = {:by}, [[closedAt]] = {:now}, [[updated]] = {:now}
		WHERE [[id]] = {:id}`).Prepare()
	defer wholly.Close()
	for _, o := range older {
		if !o.Changed {
			continue
		}
		superseded, err := json.Marshal(o.Superseded)
		if err != nil {
			return err
		}
		attrs, err := json.Marshal(o.SupersededAttributes)
		if err != nil {
			return err
		}
		params := dbx.Params{"id": FormatID(o.ID), "superseded": string(superseded), "attrs": string(attrs), "now": now}
		q := partly
		if o.Status == enrichment.StatusSuperseded {
			params["status"], params["by"], q = o.Status, FormatID(o.SupersededBy), wholly
		}
		if _, err := q.Bind(params).Execute(); err != nil {
			return fmt.Errorf("supersede revision %d: %w", o.ID, err)
		}
	}
	return nil
}

// proposedNames lists the fields a revision's proposed JSON proposes, in
// API order. note: only the keys matter; a value is not decoded, so a field
// whose value has an unexpected shape still counts, and unreadable JSON
// proposes nothing.
func proposedNames(raw []byte) []string {
	var proposed map[string]jsontext.Value
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &proposed)
	}
	var out []string
	for _, name := range enrichment.EnrichableFields {
		if v, ok := proposed[name]; ok && v.Kind() != 'n' { // absent or null: not proposed
			out = append(out, name)
		}
	}
	return out
}

// proposedAttributeNames lists the names of the attributes a revision's
// proposed JSON proposes, each once, in the order proposed; none when it
// proposes no attributes or cannot be read.
func proposedAttributeNames(raw []byte) []string {
	var proposed struct {
		Attributes []struct {
			Attribute string `json:"attribute"`
		} `json:"attributes"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &proposed) != nil {
		return nil
	}
	var out []string
	for _, a := range proposed.Attributes {
		if !slices.Contains(out, a.Attribute) {
			out = append(out, a.Attribute)
		}
	}
	return out
}
