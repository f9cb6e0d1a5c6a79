package store

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"slices"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Supersession (docs/review.md): within one API client's proposals for one
// product, a newer proposal of a field replaces the older pending one's.
// The older revision's field becomes superseded; once all of its proposed
// fields are, the revision itself is superseded by the newer one. It happens
// in the transaction that stores the newer batch, so two batches of one
// client, however concurrent, leave at most one pending proposal per field.
// Different clients' proposals never supersede each other.

// proposalState is a revision of one client while a batch is stored: its
// proposed fields, those superseded so far, and its status.
type proposalState struct {
	id           int64
	created      time.Time
	product      string
	fields       []string // proposed, in API order
	superseded   []string // superseded so far, in API order
	status       string   // pending or superseded
	supersededBy int64
	changed      bool // an older revision the batch changed, to write back
	model        modelKey
}

// supersede applies each new revision, in id order, to the pending ones
// before it for the same product: older (the stored ones, in id order) and
// earlier new ones. It marks what changed in place.
func supersede(older, created []*proposalState) {
	pending := map[string][]*proposalState{}
	for _, o := range older {
		pending[o.product] = append(pending[o.product], o)
	}
	for _, n := range created {
		var still []*proposalState
		for _, prev := range pending[n.product] {
			for _, f := range n.fields {
				if slices.Contains(prev.fields, f) && !slices.Contains(prev.superseded, f) {
					prev.superseded = append(prev.superseded, f)
					prev.changed = true
				}
			}
			if len(prev.superseded) == len(prev.fields) {
				prev.status, prev.supersededBy = enrichment.StatusSuperseded, n.id
				continue
			}
			still = append(still, prev)
		}
		pending[n.product] = append(still, n)
	}
	for _, p := range slices.Concat(older, created) {
		p.superseded = inAPIOrder(p.superseded)
	}
}

// inAPIOrder sorts field names as enrichment.EnrichableFields lists them.
func inAPIOrder(fields []string) []string {
	slices.SortFunc(fields, func(a, b string) int {
		return slices.Index(enrichment.EnrichableFields, a) - slices.Index(enrichment.EnrichableFields, b)
	})
	return fields
}

// pendingProposals loads client's pending revisions of org for products,
// with their proposed and superseded fields.
func (s *Store) pendingProposals(org enrichment.Org, client int64, products []string) ([]*proposalState, error) {
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
	}
	// note: the index is named because without statistics of revisions
	// SQLite prefers (organization, status) and walks every pending revision
	// of the organization (23 ms instead of 6 for a batch of 1000); the
	// literal 'pending' is what lets it use the partial index at all
	err := s.db().NewQuery(`SELECT [[id]], [[created]], [[product]], [[proposed]], [[supersededFields]], [[model]]
		FROM {{revisions}} INDEXED BY ` + schema.IdxRevisionsPendingProduct + `
		WHERE [[organization]] = {:org} AND [[apiClient]] = {:client} AND [[status]] = 'pending'
		AND ` + inList("product", "products") + `
		ORDER BY CAST([[id]] AS INTEGER)`).
		Bind(dbx.Params{"org": string(org), "client": FormatID(client), "products": inValues(products)}).
		All(&rows)
	if err != nil {
		return nil, fmt.Errorf("find pending proposals of client %d: %w", client, err)
	}
	out := make([]*proposalState, len(rows))
	for i, r := range rows {
		out[i] = &proposalState{id: ParseID(r.ID), created: r.Created.Time(), product: r.Product, fields: proposedNames(r.Proposed),
			superseded: decodeStrings(r.Superseded), status: enrichment.StatusPending, model: storedModel(r.Model)}
	}
	return out, nil
}

// writeSuperseded stores what a batch changed of older revisions. note: a
// revision that keeps pending fields gets only its supersededFields
// written: its status, supersededBy and closedAt are in six indexes.
func (s *Store) writeSuperseded(older []*proposalState, now string) error {
	partly := s.db().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[supersededFields]] = {:superseded},
		[[updated]] = {:now} WHERE [[id]] = {:id}`).Prepare()
	defer partly.Close()
	wholly := s.db().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[supersededFields]] = {:superseded},
		[[status]] = {:status}, [[supersededBy]] = {:by}, [[closedAt]] = {:now}, [[updated]] = {:now}
		WHERE [[id]] = {:id}`).Prepare()
	defer wholly.Close()
	for _, o := range older {
		if !o.changed {
			continue
		}
		superseded, err := json.Marshal(o.superseded)
		if err != nil {
			return err
		}
		params := dbx.Params{"id": FormatID(o.id), "superseded": string(superseded), "now": now}
		q := partly
		if o.status == enrichment.StatusSuperseded {
			params["status"], params["by"], q = o.status, FormatID(o.supersededBy), wholly
		}
		if _, err := q.Bind(params).Execute(); err != nil {
			return fmt.Errorf("supersede revision %d: %w", o.id, err)
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
