package store

import (
	"encoding/json/v2"
	"fmt"
	"slices"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// apiTimeLayout renders times as the API shows them: ISO-8601 UTC with
// milliseconds and Z.
const apiTimeLayout = "2006-01-02T15:04:05.000Z"

// RevisionQuery selects a page of one API client's revisions.
type RevisionQuery struct {
	Page     int       // zero-based
	PageSize int       // already clamped by the caller
	Status   string    // "": any status
	SKU      string    // "": any SKU; else exactly this one
	Since    time.Time // zero: no filter; else submitted or closed strictly after
}

// revisionRow is a revision as the list reads it (base is never read).
type revisionRow struct {
	ID             string         `db:"id"`
	SKU            string         `db:"sku"`
	Product        string         `db:"product"`
	Confidence     int            `db:"confidence"`
	ConfidenceBand string         `db:"confidenceBand"`
	Status         string         `db:"status"`
	Created        types.DateTime `db:"created"`
	ReviewedAt     types.DateTime `db:"reviewedAt"`
	ClosedAt       types.DateTime `db:"closedAt"`
	Proposed       types.JSONRaw  `db:"proposed"`
	ApprovedFields types.JSONRaw  `db:"approvedFields"`
	Superseded     types.JSONRaw  `db:"supersededFields"`
	SupersededBy   string         `db:"supersededBy"`
	Reason         string         `db:"reason"`
	Comment        string         `db:"comment"`
	Overwritten    types.JSONRaw  `db:"overwrittenFields"`
	Issues         types.JSONRaw  `db:"issues"`
	Model          types.JSONRaw  `db:"model"`
	Sources        types.JSONRaw  `db:"sources"`
}

var revisionColumns = []string{"id", "sku", "product", "confidence", "confidenceBand", "status", "created", "reviewedAt",
	"closedAt", "proposed", "approvedFields", "supersededFields", "supersededBy", "reason", "comment", "overwrittenFields",
	"issues", "model", "sources"}

// ClientRevisions returns one page of the revisions that API client submitted
// for org, in numeric id order, with the total over all pages: one COUNT and
// one page query, whatever the page size.
func (s *Store) ClientRevisions(org enrichment.Org, client int64, q RevisionQuery) (enrichment.Page[enrichment.RevisionItem], error) {
	var total int
	err := s.db().Select("COUNT(*)").From("revisions").Where(revisionFilter(org, client, q, false)).Row(&total)
	if err != nil {
		return enrichment.Page[enrichment.RevisionItem]{}, fmt.Errorf("count revisions of client %d of organization %s: %w", client, org, err)
	}
	var rows []revisionRow
	if q.Page < (total+q.PageSize-1)/q.PageSize { // note: a page past the end is empty; never multiply a huge page number
		err := s.db().Select(revisionColumns...).From("revisions").Where(revisionFilter(org, client, q, true)).
			OrderBy("CAST(id AS INTEGER)").
			Limit(int64(q.PageSize)).Offset(int64(q.Page) * int64(q.PageSize)).
			All(&rows)
		if err != nil {
			return enrichment.Page[enrichment.RevisionItem]{}, fmt.Errorf("list revisions of client %d of organization %s: %w", client, org, err)
		}
	}

	items := make([]enrichment.RevisionItem, len(rows))
	for i, r := range rows {
		items[i] = r.item()
	}
	return enrichment.NewPage(items, q.Page, q.PageSize, total), nil
}

// revisionFilter selects client's revisions of org that match q's filters.
// note: for the page query status is compared as +status, which keeps
// SQLite from walking idx_revisions_org_status (organization-wide, checking
// the client on every record it skips) instead of idx_revisions_client_listed,
// which holds the client, the id order and every filtered column.
func revisionFilter(org enrichment.Org, client int64, q RevisionQuery, page bool) dbx.Expression {
	match := dbx.HashExp{"organization": string(org), "apiClient": FormatID(client)}
	if q.SKU != "" {
		match["sku"] = q.SKU
	}
	where := []dbx.Expression{match}
	if q.Status != "" {
		status := "[[status]] = {:status}"
		if page {
			status = "+" + status
		}
		where = append(where, dbx.NewExp(status, dbx.Params{"status": q.Status}))
	}
	if !q.Since.IsZero() {
		where = append(where, dbx.NewExp("([[created]] > {:since} OR [[closedAt]] > {:since})",
			dbx.Params{"since": FormatTime(q.Since)}))
	}
	return dbx.And(where...)
}

// item renders a row for its submitter.
func (r revisionRow) item() enrichment.RevisionItem {
	it := enrichment.RevisionItem{
		ID:          storedID(r.ID),
		SKU:         r.SKU,
		Status:      r.Status,
		SubmittedAt: apiTime(r.Created),
		ReviewedAt:  optionalTime(r.ReviewedAt),
		ClosedAt:    optionalTime(r.ClosedAt),
		Reason:      nullIfEmpty(r.Reason),
		Comment:     nullIfEmpty(r.Comment),
		Fields:      r.outcomes(),
		Issues:      []enrichment.Issue{},
		Sources:     []enrichment.Source{},
	}
	// note: revisions stored before the checks hold NULL; a broken value
	// shows as none rather than failing the page
	if len(r.Issues) > 0 {
		_ = json.Unmarshal(r.Issues, &it.Issues)
	}
	if len(r.Sources) > 0 {
		_ = json.Unmarshal(r.Sources, &it.Sources)
	}
	if len(r.Model) > 0 {
		_ = json.Unmarshal(r.Model, &it.Model)
	}
	if r.Product != "" {
		id := storedID(r.Product)
		it.ProductID = &id
	}
	if r.ConfidenceBand != "" {
		c := r.Confidence
		it.Confidence = &c
	}
	if r.SupersededBy != "" {
		id := storedID(r.SupersededBy)
		it.SupersededBy = &id
	}
	return it
}

// outcomes lists each proposed field with what became of it. An accepted
// revision with no approvedFields applied every proposed field
// (docs/review.md), so all of them are reported applied.
func (r revisionRow) outcomes() enrichment.FieldOutcomes {
	approved := decodeStrings(r.ApprovedFields)
	superseded, overwritten := decodeStrings(r.Superseded), decodeStrings(r.Overwritten)
	out := enrichment.FieldOutcomes{}
	for _, name := range proposedNames(r.Proposed) {
		outcome := enrichment.OutcomePending
		switch {
		case slices.Contains(superseded, name):
			outcome = enrichment.OutcomeSuperseded
		case r.Status == enrichment.StatusAccepted && (len(approved) == 0 || slices.Contains(approved, name)):
			outcome = enrichment.OutcomeApplied
			if slices.Contains(overwritten, name) { // by a later catalog import
				outcome = enrichment.OutcomeOverwritten
			}
		case r.Status == enrichment.StatusAccepted, r.Status == enrichment.StatusRejected:
			outcome = enrichment.OutcomeNotApplied
		case r.Status == enrichment.StatusExpired:
			outcome = enrichment.OutcomeExpired
		case r.Status == enrichment.StatusSuperseded:
			outcome = enrichment.OutcomeSuperseded
		}
		out = append(out, enrichment.FieldOutcome{Field: name, Outcome: outcome})
	}
	return out
}

// apiTime renders a stored time as the API shows it.
func apiTime(t types.DateTime) string {
	return t.Time().UTC().Format(apiTimeLayout)
}

// optionalTime renders a stored time, nil when it is not set.
func optionalTime(t types.DateTime) *string {
	if t.IsZero() {
		return nil
	}
	s := apiTime(t)
	return &s
}
