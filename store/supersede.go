package store

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"slices"

	"github.com/catalog-enrichment/enrichment/dbversion"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Supersession (enrichment.Supersede, docs/review.md) happens in the
// transaction that stores the newer batch, so two batches of one client,
// however concurrent, leave at most one pending proposal per field. These
// functions read the client's pending revisions and write back what
// Supersede changed.

// pendingFrom is the FROM and WHERE of client's pending revisions of org
// for products. note: the index is named because without statistics of
// revisions SQLite prefers (organization, status) and walks every pending
// revision of the organization (23 ms instead of 6 for a batch of 1000);
// the literal 'pending' is what lets it use the partial index at all.
var pendingFrom = ` FROM {{revisions}} INDEXED BY ` + schema.IdxRevisionsPendingProduct + `
	WHERE [[organization]] = {:org} AND [[apiClient]] = {:client} AND [[status]] = 'pending'
	AND ` + sqlparts.InList("product", "products")

// pendingSet is client's pending revisions of org for a batch's products as
// read before the batch's write transaction, which is one at a time: their
// proposed JSON, the bulk of what is read, and its names are read there in
// parallel with other batches. What it holds cannot change while the
// revision is pending (its id, product, creation, proposed fields and
// model); the transaction reads what can (which are still pending, and
// their superseded fields) with pendingProposals.
//
// note: read outside, the rows cost more (about a tenth of a batch of 1000
// on 2 cores): a pooled reader finds the pages the last batches wrote in
// the WAL, not in its cache, where the writer has them. That pays only
// while other batches wait for the lock, so a batch alone (no other
// submission under way in the process) is not read before: preread false,
// and the transaction reads it all, as it did.
type pendingSet struct {
	params  dbx.Params                          // org, client and products, as pendingFrom binds them
	preread bool                                // whether known, models and rowIDs were read before
	known   map[int64]*enrichment.ProposalState // by id
	models  map[int64]modelKey                  // by id
	rowIDs  map[int64]int64                     // by id
	// the database's version before the read; a transaction that finds
	// it unchanged, nothing committed since, reads nothing again
	versions  *dbversion.Watcher
	version   dbversion.Version
	versioned bool
}

// pendingBefore reads client's pending revisions of org for products,
// outside the write transaction, if preread; otherwise it only notes what
// the transaction is to read.
func (s *Proposals) pendingBefore(org enrichment.Org, client int64, products []string, preread bool) (*pendingSet, error) {
	p := &pendingSet{params: dbx.Params{"org": string(org), "client": FormatID(client), "products": sqlparts.InValues(products)},
		preread: preread, known: map[int64]*enrichment.ProposalState{}, models: map[int64]modelKey{}, rowIDs: map[int64]int64{}}
	if len(products) == 0 || !preread {
		return p, nil
	}
	// note: the version is read before the revisions, so a commit in
	// between only costs the transaction a second read
	p.versions = generationsOf(s.app).versions
	var err error
	p.version, err = p.versions.Version(context.Background())
	p.versioned = err == nil
	states, err := s.readPending(pendingFrom, p.params, p.models, p.rowIDs)
	if err != nil {
		return nil, fmt.Errorf("find pending proposals of client %d: %w", client, err)
	}
	for _, st := range states {
		p.known[st.ID] = st
	}
	return p, nil
}

// pendingProposals loads the pending revisions of p as they are now, in
// id order: those p read with their superseded fields read again, and any
// stored since read whole; nothing is read again when nothing at all was
// committed since p was read. It notes each one's model in models (for the
// metric counters, which the rules need not see) and its rowid in rowIDs
// (for writeSuperseded). It must run in the write transaction once that
// holds the write lock (after a first write), so that no commit can come
// after the version is compared.
func (s *Proposals) pendingProposals(p *pendingSet, models map[int64]modelKey, rowIDs map[int64]int64) ([]*enrichment.ProposalState, error) {
	if !p.preread {
		out, err := s.readPending(pendingFrom, p.params, models, rowIDs)
		if err != nil {
			return nil, fmt.Errorf("find pending proposals of client %s: %w", p.params["client"], err)
		}
		slices.SortFunc(out, func(a, b *enrichment.ProposalState) int { return cmp.Compare(a.ID, b.ID) })
		return out, nil
	}
	if len(p.known) == 0 && p.versions == nil {
		return nil, nil // no products
	}
	if p.versioned {
		if now, err := p.versions.Version(context.Background()); err == nil && now == p.version {
			out := make([]*enrichment.ProposalState, 0, len(p.known))
			for id, known := range p.known {
				out = append(out, known)
				models[id], rowIDs[id] = p.models[id], p.rowIDs[id]
			}
			slices.SortFunc(out, func(a, b *enrichment.ProposalState) int { return cmp.Compare(a.ID, b.ID) })
			return out, nil
		}
	}
	var rows []struct {
		RowID      int64  `db:"rowID"`
		ID         string `db:"id"`
		Superseded []byte `db:"supersededFields"`
		Attrs      []byte `db:"supersededAttributes"`
	}
	err := s.db().NewQuery(`SELECT [[_rowid_]] AS [[rowID]], [[id]], [[supersededFields]], [[supersededAttributes]]` + pendingFrom).
		Bind(p.params).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("find pending proposals of client %s: %w", p.params["client"], err)
	}
	out := make([]*enrichment.ProposalState, 0, len(rows))
	var unknown []int64 // rowids of revisions stored since p was read
	for _, r := range rows {
		id := sqlparts.StoredID(r.ID)
		known := p.known[id]
		if known == nil {
			unknown = append(unknown, r.RowID)
			continue
		}
		st := *known
		st.Superseded, st.SupersededAttributes = decodeStrings(r.Superseded), decodeStrings(r.Attrs)
		out = append(out, &st)
		models[id], rowIDs[id] = p.models[id], r.RowID
	}
	if len(unknown) > 0 {
		more, err := s.readPending(` FROM {{revisions}} WHERE `+sqlparts.InList("_rowid_", "rowIDs"),
			dbx.Params{"rowIDs": sqlparts.InValues(unknown)}, models, rowIDs)
		if err != nil {
			return nil, fmt.Errorf("read %d pending proposals stored meanwhile: %w", len(unknown), err)
		}
		out = append(out, more...)
	}
	slices.SortFunc(out, func(a, b *enrichment.ProposalState) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// readPending reads the pending revisions that from (FROM and WHERE, with
// params) selects, whole, and notes their models in models and, unless it
// is nil, their rowids in rowIDs. note: in no particular order; an ORDER BY
// copied every row, proposed JSON and all, through SQLite's sorter.
func (s *Proposals) readPending(from string, params dbx.Params, models map[int64]modelKey, rowIDs map[int64]int64) ([]*enrichment.ProposalState, error) {
	var rows []struct {
		RowID      int64          `db:"rowID"`
		ID         string         `db:"id"`
		Created    types.DateTime `db:"created"`
		Product    string         `db:"product"`
		Proposed   []byte         `db:"proposed"`
		Superseded []byte         `db:"supersededFields"`
		Model      []byte         `db:"model"`
		Attrs      []byte         `db:"supersededAttributes"`
	}
	err := s.db().NewQuery(`SELECT [[_rowid_]] AS [[rowID]], [[id]], [[created]], [[product]], [[proposed]], [[supersededFields]],
		[[supersededAttributes]], [[model]]` + from).Bind(params).All(&rows)
	if err != nil {
		return nil, err
	}
	out := make([]*enrichment.ProposalState, len(rows))
	for i, r := range rows {
		fields, attributes := proposalNames(r.Proposed)
		out[i] = &enrichment.ProposalState{ID: sqlparts.StoredID(r.ID), Created: r.Created.Time(), Product: r.Product, Fields: fields,
			Superseded: decodeStrings(r.Superseded), Status: enrichment.StatusPending,
			Attributes: attributes, SupersededAttributes: decodeStrings(r.Attrs)}
		models[out[i].ID] = storedModel(r.Model)
		if rowIDs != nil {
			rowIDs[out[i].ID] = r.RowID
		}
	}
	return out, nil
}

// writeSuperseded stores what a batch changed of older revisions, found by
// the rowids pendingProposals noted in rowIDs, in two statements
// for the whole batch rather than two per revision: a statement's own cost
// in the driver was a sixth of this. note: a revision that keeps pending
// fields gets only its supersededFields written: its status, supersededBy
// and closedAt are in six indexes.
func (s *Proposals) writeSuperseded(older []*enrichment.ProposalState, rowIDs map[int64]int64, now string) error {
	// each element: rowid, supersededFields and supersededAttributes (as
	// JSON text, in a string, so that they are stored as Go encodes them)
	// and, for the wholly superseded, the newer revision's id
	var partly, wholly []any
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
		if o.Status == enrichment.StatusSuperseded {
			wholly = append(wholly, []any{rowIDs[o.ID], string(superseded), string(attrs), FormatID(o.SupersededBy)})
		} else {
			partly = append(partly, []any{rowIDs[o.ID], string(superseded), string(attrs)})
		}
	}
	set := `[[supersededFields]] = u.[[value]] ->> 1, [[supersededAttributes]] = u.[[value]] ->> 2, [[updated]] = {:now}`
	for _, w := range []struct {
		rows []any
		set  string
	}{
		{partly, set},
		{wholly, set + `, [[status]] = '` + enrichment.StatusSuperseded + `', [[supersededBy]] = u.[[value]] ->> 3, [[closedAt]] = {:now}`},
	} {
		if len(w.rows) == 0 {
			continue
		}
		list, err := json.Marshal(w.rows)
		if err != nil {
			return err
		}
		_, err = s.db().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET ` + w.set + `
			FROM json_each({:rows}) AS u WHERE {{` + schema.Revisions + `}}.[[_rowid_]] = u.[[value]] ->> 0`).
			Bind(dbx.Params{"rows": string(list), "now": now}).Execute()
		if err != nil {
			return fmt.Errorf("supersede %d revisions: %w", len(w.rows), err)
		}
	}
	return nil
}

// proposalNames lists what a revision's proposed JSON proposes, in one
// pass that decodes no value but the attributes' names: the fields, in API
// order, and the names of the proposed attributes, each once, in the order
// proposed. note: only the keys matter; a value is not decoded, so a field
// whose value has an unexpected shape still counts (an absent or null one
// does not); unreadable JSON proposes nothing, and attributes of an
// unexpected shape name none.
func proposalNames(raw []byte) (fields, attributes []string) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, nil
	}
	var proposed uint64 // bit i: enrichment.EnrichableFields[i]
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil || tok.Kind() != '"' {
			return nil, nil
		}
		name := tok.String() // note: before the next call, which voids tok
		kind := dec.PeekKind()
		if i := slices.Index(enrichment.EnrichableFields, name); i >= 0 && kind != 'n' && kind != 0 {
			proposed |= 1 << i
		}
		if name == "attributes" && kind == '[' {
			var ok bool
			if attributes, ok = attributeNames(dec); !ok {
				attributes = nil
			}
			continue
		}
		if err := dec.SkipValue(); err != nil {
			return nil, nil
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, nil
	}
	for i, name := range enrichment.EnrichableFields {
		if proposed&(1<<i) != 0 {
			fields = append(fields, name)
		}
	}
	return fields, attributes
}

// attributeNames reads a proposed attributes array from dec, which is
// before its '[', to its end: the names each once, in order. It is false
// when an element has an unexpected shape (the array is still read past).
func attributeNames(dec *jsontext.Decoder) (names []string, ok bool) {
	if _, err := dec.ReadToken(); err != nil {
		return nil, false
	}
	ok = true
	for dec.PeekKind() != ']' {
		switch dec.PeekKind() {
		case 'n': // a null element: an attribute without a name
			if _, err := dec.ReadToken(); err != nil {
				return nil, false
			}
			names = appendOnce(names, "")
		case '{':
			name, good := attributeName(dec)
			if !good {
				ok = false
			}
			names = appendOnce(names, name)
		default:
			if dec.SkipValue() != nil {
				return nil, false
			}
			ok = false
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, false
	}
	return names, ok
}

// attributeName reads one attribute object from dec: its "attribute"
// string ("" when absent or null), false when that is of another kind or
// the object cannot be read.
func attributeName(dec *jsontext.Decoder) (string, bool) {
	if _, err := dec.ReadToken(); err != nil {
		return "", false
	}
	name, ok := "", true
	for dec.PeekKind() != '}' {
		key, err := dec.ReadToken()
		if err != nil {
			return "", false
		}
		if key.String() == "attribute" { // note: read before the next call voids key
			switch dec.PeekKind() {
			case '"':
				v, err := dec.ReadToken()
				if err != nil {
					return "", false
				}
				name = v.String()
				continue
			case 'n':
			default:
				ok = false
			}
		}
		if dec.SkipValue() != nil {
			return "", false
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return "", false
	}
	return name, ok
}

// appendOnce appends s to list unless it is there.
func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
