package store

import (
	"bytes"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// SubmitOptions tunes Submit.
type SubmitOptions struct {
	DryRun bool // answer as a real submission would, store nothing
	// ExternalID is the batch's externalSubmissionId, kept on each revision.
	ExternalID string
	// Idempotency, when set, is stored with the revisions in the same
	// transaction, so a replay finds either the whole batch or nothing.
	Idempotency *IdempotencyKey
	// Selection is the submitting client's catalog: products it does not
	// select are unmatched.
	Selection enrichment.Selection
}

// submissionProduct is what matching and the base snapshot need of a product.
type submissionProduct struct {
	ID          string `db:"id"`
	SKU         string `db:"sku"`
	Name        string `db:"name"`
	Slug        string `db:"slug"`
	Description string `db:"description"`
	Attributes  []byte `db:"attributes"`
	Files       []byte `db:"files"`
	// AttributeTemplate is the id of its attribute template, "" for none.
	AttributeTemplate string `db:"attributeTemplate"`
}

func (r submissionProduct) recordID() string { return r.ID }

// revisionInsert writes a new revision; one that a later item of the same
// batch superseded is born superseded.
const revisionInsert = `INSERT INTO {{revisions}} ([[id]], [[organization]], [[apiClient]], [[product]], [[sku]],
	[[confidence]], [[confidenceBand]], [[proposed]], [[base]], [[status]], [[approvedFields]],
	[[reviewedAt]], [[reviewer]], [[externalSubmissionId]], [[supersededFields]], [[supersededBy]],
	[[closedAt]], [[reason]], [[comment]], [[issues]], [[model]], [[sources]], [[supersededAttributes]], [[created]], [[updated]])
	VALUES ({:id}, {:org}, {:client}, {:product}, {:sku}, {:confidence}, {:band}, {:proposed}, {:base},
	{:status}, '[]', '', '', {:external}, {:superseded}, {:by}, {:closed}, '', '', {:issues}, {:model}, {:sources},
	{:attrs}, {:now}, {:now})`

// Submit matches each proposal to org's active products by SKU and, unless
// it is a dry run, stores a pending revision for each CREATED one in a
// single transaction: the whole batch or nothing. Results are in order.
func (s *Proposals) Submit(org enrichment.Org, client int64, proposals []enrichment.Proposal, opts SubmitOptions) ([]enrichment.SubmissionResult, error) {
	matches, err := s.matchSKUs(org, opts.Selection, proposals)
	if err != nil {
		return nil, err
	}
	if err := s.dropForeignOptions(org, proposals); err != nil {
		return nil, err
	}
	if err := s.checkProposals(org, proposals, matches); err != nil {
		return nil, err
	}

	results, created := submissionResults(proposals, matches)
	if opts.DryRun {
		return results, nil
	}

	rows, err := newRevisions(proposals, matches, created)
	if err != nil {
		return nil, err
	}
	var pending *pendingSet
	if len(rows) > 0 {
		products := make([]string, len(rows))
		for n, r := range rows {
			products[n] = r.product
		}
		under := submissionsUnderWay(s.app)
		// another batch is being stored: the lock is contended. note: a
		// submission within a caller's transaction (the demo's) has no
		// before to read in
		others := under.Add(1) > 1 && !s.app.IsTransactional()
		defer under.Add(-1)
		if pending, err = s.pendingBefore(org, client, unique(products), others); err != nil {
			return nil, err
		}
	}
	var changed []int64 // revisions the batch superseded, wholly or in part
	err = s.Transaction(func(tx *Store) error {
		if len(rows) > 0 {
			if err := tx.Proposals().roomForBatch(); err != nil {
				return err
			}
			var err error
			if changed, err = tx.Proposals().insertRevisions(org, client, rows, results, opts.ExternalID, pending); err != nil {
				return err
			}
		}
		if opts.Idempotency != nil {
			return tx.Proposals().saveIdempotent(client, *opts.Idempotency, results)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var stored []int64
	for _, r := range results {
		if r.RevisionID != nil {
			stored = append(stored, *r.RevisionID)
		}
	}
	s.announceRevisions(stored, changed)
	return results, nil
}

// submissionResults answers each proposal from its SKU's matches, dropping
// first what a single matched product could not store; created lists the
// indexes of the CREATED results.
func submissionResults(proposals []enrichment.Proposal, matches map[string][]submissionProduct) (results []enrichment.SubmissionResult, created []int) {
	results = make([]enrichment.SubmissionResult, len(proposals))
	for i := range proposals {
		found := matches[proposals[i].SKU]
		if len(found) == 1 {
			dropUnmergeable(&proposals[i], found[0])
		}
		p := proposals[i]
		r := enrichment.SubmissionResult{SKU: p.SKU, Status: enrichment.ResultUnmatched, IgnoredFields: p.Ignored, Issues: p.Issues}
		if r.IgnoredFields == nil {
			r.IgnoredFields = []string{}
		}
		if r.Issues == nil {
			r.Issues = []enrichment.Issue{}
		}
		if len(found) == 1 {
			id := sqlparts.StoredID(found[0].ID)
			r.ProductID = &id
			r.Status = enrichment.ResultRejectedFields
			if len(p.Fields.Names()) > 0 {
				r.Status = enrichment.ResultCreated
				created = append(created, i)
			}
		}
		results[i] = r
	}
	return results, created
}

// newRevision is a new revision's values, all but its id.
type newRevision struct {
	item           int // index of its proposal and result
	product, sku   string
	confidence     int
	band           string
	proposed, base string
	fields         []string // the proposed field names
	// what the checks found, the model (nil for none) and the sources, as JSON
	issues, sources string
	model           *string
	modelName       string // "" for none
	modelVersion    string
	attributes      []string // the names of the proposed attributes
}

// newRevisions encodes the revisions of the created proposals. It runs
// before the write transaction, which is one at a time, so the encoding of
// concurrent batches runs in parallel; a batch's own halves do too.
func newRevisions(proposals []enrichment.Proposal, matches map[string][]submissionProduct, created []int) ([]newRevision, error) {
	rows := make([]newRevision, len(created))
	half := len(created) / 2
	var wg sync.WaitGroup
	var firstErr error
	wg.Go(func() { firstErr = encodeRevisions(proposals, matches, created[:half], rows[:half]) })
	err := encodeRevisions(proposals, matches, created[half:], rows[half:])
	wg.Wait()
	if err := errors.Join(firstErr, err); err != nil {
		return nil, err
	}
	return rows, nil
}

// encodeRevisions fills rows[n] with the revision of proposal created[n].
func encodeRevisions(proposals []enrichment.Proposal, matches map[string][]submissionProduct, created []int, rows []newRevision) error {
	for n, i := range created {
		p := proposals[i]
		product := matches[p.SKU][0]
		proposed, err := json.Marshal(p.Fields)
		if err != nil {
			return fmt.Errorf("encode proposal %d: %w", i, err)
		}
		base, err := json.Marshal(baseOf(product, p.Fields))
		if err != nil {
			return fmt.Errorf("encode base of proposal %d: %w", i, err)
		}
		r := newRevision{item: i, product: product.ID, sku: p.SKU, proposed: string(proposed), base: string(base),
			fields: p.Fields.Names(), attributes: p.Fields.AttributeNames(), issues: "[]", sources: "[]"}
		if len(p.Issues) > 0 {
			if r.issues, err = encodeString(p.Issues); err != nil {
				return fmt.Errorf("encode issues of proposal %d: %w", i, err)
			}
		}
		if len(p.Sources) > 0 {
			if r.sources, err = encodeString(p.Sources); err != nil {
				return fmt.Errorf("encode sources of proposal %d: %w", i, err)
			}
		}
		if p.Model != nil {
			model, err := encodeString(p.Model)
			if err != nil {
				return fmt.Errorf("encode model of proposal %d: %w", i, err)
			}
			r.model, r.modelName, r.modelVersion = &model, p.Model.Name, p.Model.Version
		}
		if p.Confidence != nil {
			r.confidence, r.band = *p.Confidence, enrichment.ConfidenceBand(*p.Confidence)
		}
		rows[n] = r
	}
	return nil
}

// insertRevisions numbers and inserts rows, noting each id in its result,
// and supersedes what they replace of client's pending proposals (pending:
// read before the transaction while other batches were under way and
// brought up to date here, or else read here).
func (s *Proposals) insertRevisions(org enrichment.Org, client int64, rows []newRevision,
	results []enrichment.SubmissionResult, external string, pending *pendingSet) (changed []int64, err error) {
	first, err := NextIDs(s.db(), schema.Revisions, len(rows))
	if err != nil {
		return nil, err
	}
	created := make([]*enrichment.ProposalState, len(rows))
	models := make(map[int64]modelKey, len(rows)) // of created and older, by revision id
	for n, r := range rows {
		created[n] = &enrichment.ProposalState{ID: first + int64(n), Product: r.product, Fields: r.fields,
			Attributes: r.attributes, Status: enrichment.StatusPending}
		models[created[n].ID] = modelKey{r.modelName, r.modelVersion}
	}
	rowIDs := map[int64]int64{}
	older, err := s.pendingProposals(pending, models, rowIDs)
	if err != nil {
		return nil, err
	}
	enrichment.Supersede(older, created)

	now := clock.Now(s.app)
	stamp := FormatTime(now)
	q := s.db().NewQuery(revisionInsert).Prepare()
	defer q.Close()
	for n, r := range rows {
		c := created[n]
		superseded, err := json.Marshal(c.Superseded)
		if err != nil {
			return nil, err
		}
		var attrs any // NULL unless some attribute was superseded
		if len(c.SupersededAttributes) > 0 {
			text, err := json.Marshal(c.SupersededAttributes)
			if err != nil {
				return nil, err
			}
			attrs = string(text)
		}
		by, closed := "", ""
		if c.Status == enrichment.StatusSuperseded {
			by, closed = FormatID(c.SupersededBy), stamp
		}
		_, err = q.Bind(dbx.Params{
			"id": FormatID(c.ID), "org": string(org), "client": FormatID(client), "product": r.product,
			"sku": r.sku, "confidence": r.confidence, "band": r.band, "proposed": r.proposed,
			"base": r.base, "external": external, "status": c.Status, "superseded": string(superseded),
			"by": by, "closed": closed, "now": stamp, "issues": r.issues, "model": r.model, "sources": r.sources, "attrs": attrs,
		}).Execute()
		if err != nil {
			return nil, fmt.Errorf("insert revision for item %d: %w", r.item, err)
		}
		results[r.item].RevisionID = &c.ID
	}
	if err := s.writeSuperseded(older, rowIDs, stamp); err != nil {
		return nil, err
	}
	// the metric counters and the events of what this batch stored and closed
	who := FormatID(client)
	deltas := metricDeltas{}
	var superseded []int64
	for _, c := range created {
		deltas.add(who, models[c.ID], now, c.Status, "", "", 1)
	}
	for _, o := range older {
		if o.Status == enrichment.StatusSuperseded {
			deltas.move(who, models[o.ID], o.Created, now, o.Status, "", "")
		}
	}
	// note: a revision of this batch that a later item superseded is
	// changed too: realtime sends its update after its create
	for _, p := range slices.Concat(older, created) {
		if p.Changed {
			changed = append(changed, p.ID)
		}
		if p.Status == enrichment.StatusSuperseded {
			superseded = append(superseded, p.ID)
		}
	}
	if err := s.Metrics().writeMetricDeltas(org, deltas); err != nil {
		return nil, err
	}
	return changed, s.Outbox().queueRevisionEvents(org, enrichment.EventRevisionSuperseded, superseded)
}

// encodeString is v as JSON text.
func encodeString(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// baseSnapshot is enrichment.Fields as a revision's base stores it: the
// product's value of each proposed field at submission time. Attributes are
// copied as stored, not decoded and encoded again: that was a sixth of a
// batch's time.
type baseSnapshot struct {
	Name        *string        `json:"name,omitzero"`
	Slug        *string        `json:"slug,omitzero"`
	Description *string        `json:"description,omitzero"`
	Attributes  jsontext.Value `json:"attributes,omitzero"`
	Files       *[]string      `json:"files,omitzero"`
}

// baseOf is the base of a proposal of product p.
func baseOf(p submissionProduct, proposed enrichment.Fields) baseSnapshot {
	var base baseSnapshot
	if proposed.Name != nil {
		base.Name = &p.Name
	}
	if proposed.Slug != nil {
		base.Slug = &p.Slug
	}
	if proposed.Description != nil {
		base.Description = &p.Description
	}
	if proposed.Attributes != nil {
		base.Attributes = storedArray(p.Attributes)
	}
	if proposed.Files != nil {
		files := decodeStrings(p.Files)
		base.Files = &files
	}
	return base
}

// storedArray is a stored JSON array column as it is, [] when it is empty,
// NULL or not an array.
func storedArray(raw []byte) jsontext.Value {
	v := jsontext.Value(bytes.TrimSpace(raw))
	if v.Kind() != '[' || !v.IsValid() {
		return jsontext.Value("[]")
	}
	return v
}

// dropUnmergeable drops proposed attributes that, merged into the
// product's, could exceed what its attributes field holds, and lists them
// as ignored: every CREATED revision must be acceptable. The sum of both
// lists' JSON bounds the merge's.
func dropUnmergeable(p *enrichment.Proposal, product submissionProduct) {
	if p.Fields.Attributes == nil {
		return
	}
	proposed, err := json.Marshal(*p.Fields.Attributes)
	if err == nil && len(product.Attributes)+len(proposed) <= enrichment.MaxJSONFieldSize {
		return
	}
	p.Fields.Attributes = nil
	p.Ignored = append(p.Ignored, "attributes")
}

// matchSKUs loads org's active products that sel selects whose SKU a
// proposal names, by SKU (others stay unmatched);
// more than one product under a SKU makes the match ambiguous.
func (s *Proposals) matchSKUs(org enrichment.Org, sel enrichment.Selection, proposals []enrichment.Proposal) (map[string][]submissionProduct, error) {
	skus := make([]string, 0, len(proposals))
	for _, p := range proposals {
		skus = append(skus, p.SKU)
	}
	rows, err := activeBySKU[submissionProduct](s, org, sel, skus, []string{"id", "sku", "name", "slug", "description", "attributes", "files", "attributeTemplate"})
	if err != nil {
		return nil, fmt.Errorf("match submitted skus: %w", err)
	}
	out := make(map[string][]submissionProduct, len(rows))
	for _, r := range rows {
		out[r.SKU] = append(out[r.SKU], r)
	}
	return out, nil
}

// dropForeignOptions unlinks proposed attributes from option ids that are
// not org's own, so a proposal cannot point at another tenant's template.
func (s *Proposals) dropForeignOptions(org enrichment.Org, proposals []enrichment.Proposal) error {
	var ids []int64
	for _, p := range proposals {
		if p.Fields.Attributes != nil {
			ids = appendOptionIDs(ids, *p.Fields.Attributes)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	known, err := s.Catalog().optionRefs(org, unique(ids))
	if err != nil {
		return err
	}
	for _, p := range proposals {
		if p.Fields.Attributes == nil {
			continue
		}
		for i, a := range *p.Fields.Attributes {
			if _, ok := known[a.OptionID]; !ok {
				(*p.Fields.Attributes)[i].OptionID = 0
			}
		}
	}
	return nil
}

// batchCacheKiB is the page cache of the connection that stores a
// batch, the one writer: 32 MB instead of the pool's 8 (service's
// dbPragmas). A batch of 1000 that supersedes as many revisions changes
// more pages than 8 MB holds (new rows, the superseded ones, and index
// pages all over the revisions' indexes), so SQLite wrote part of them to
// the WAL before the commit, read them back to update their checksums at
// the commit, and read the pages it had dropped again on the next batch.
// note: set by each submission, as the writer's connection can be closed
// and opened again (the pool's idle time); a command that imports, which
// submits nothing, keeps the pool's 8 MB and its memory (the import's
// budget, docs/performance.md).
const batchCacheKiB = 32000

// roomForBatch sets the write transaction's connection's page cache to
// batchCacheKiB.
func (s *Proposals) roomForBatch() error {
	if _, err := s.db().NewQuery("PRAGMA cache_size = -" + strconv.Itoa(batchCacheKiB)).Execute(); err != nil {
		return fmt.Errorf("set the writer's page cache: %w", err)
	}
	return nil
}

// submissionsUnderWay counts the app's submissions between their read of
// the pending revisions and their commit.
func submissionsUnderWay(app core.App) *atomic.Int64 {
	return app.Store().GetOrSet("enrichmentSubmissionsUnderWay", func() any { return new(atomic.Int64) }).(*atomic.Int64)
}
