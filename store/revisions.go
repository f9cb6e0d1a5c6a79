package store

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
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
	// of finer decisions (migrations/1795274700_finer_decisions.go)
	ApprovedAttrs    types.JSONRaw `db:"approvedAttributes"`
	SupersededAttrs  types.JSONRaw `db:"supersededAttributes"`
	OverwrittenAttrs types.JSONRaw `db:"overwrittenAttributes"`
	Corrections      types.JSONRaw `db:"corrections"`
	FieldReasons     types.JSONRaw `db:"fieldReasons"`
	// of a rollback (migrations/1795275100_rollback.go)
	RevertedFields types.JSONRaw `db:"revertedFields"`
	RevertedAttrs  types.JSONRaw `db:"revertedAttributes"`
	// of trust policies (migrations/1795275000_trust_policies.go)
	DecidedBy string `db:"decidedBy"`
}

var revisionColumns = []string{"id", "sku", "product", "confidence", "confidenceBand", "status", "created", "reviewedAt",
	"closedAt", "proposed", "approvedFields", "supersededFields", "supersededBy", "reason", "comment", "overwrittenFields",
	"issues", "model", "sources", "approvedAttributes", "supersededAttributes", "overwrittenAttributes", "corrections", "fieldReasons",
	"revertedFields", "revertedAttributes", "decidedBy"}

// ClientRevisions returns one page of the revisions that API client submitted
// for org, in numeric id order, with the total over all pages: one COUNT and
// one page query, whatever the page size.
func (s *Proposals) ClientRevisions(org enrichment.Org, client int64, q RevisionQuery) (enrichment.Page[enrichment.RevisionItem], error) {
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
		ID:          sqlparts.StoredID(r.ID),
		SKU:         r.SKU,
		Status:      r.Status,
		SubmittedAt: apiTime(r.Created),
		ReviewedAt:  optionalTime(r.ReviewedAt),
		ClosedAt:    optionalTime(r.ClosedAt),
		DecidedBy:   nullIfEmpty(r.decidedBy()),
		Reason:      nullIfEmpty(r.Reason),
		Comment:     nullIfEmpty(r.Comment),
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
	it.Fields, it.Attributes = r.outcomes()
	it.Corrections, it.FieldReasons = jsonObjectOrNull(r.Corrections), jsonObjectOrNull(r.FieldReasons)
	if r.Product != "" {
		id := sqlparts.StoredID(r.Product)
		it.ProductID = &id
	}
	it.Confidence = enrichment.StatedConfidence(r.Confidence, r.ConfidenceBand)
	if r.SupersededBy != "" {
		id := sqlparts.StoredID(r.SupersededBy)
		it.SupersededBy = &id
	}
	return it
}

// decidedBy is who decided the revision: as recorded, or "reviewer" for a
// decision recorded without it (as the migration that added it says of the
// decisions before it); "" while nobody decided.
func (r revisionRow) decidedBy() string {
	if r.DecidedBy == "" && (r.Status == enrichment.StatusAccepted || r.Status == enrichment.StatusRejected) {
		return enrichment.DecidedByReviewer
	}
	return r.DecidedBy
}

// outcomes lists each proposed field and each proposed attribute with
// what became of it (enrichment.Outcomes).
func (r revisionRow) outcomes() (fields, attributes enrichment.FieldOutcomes) {
	return enrichment.Outcomes(r.recorded())
}

// recorded is what the revision recorded about its proposal and its fate.
func (r revisionRow) recorded() enrichment.Recorded {
	corrected, _ := enrichment.ParseObject("corrections", r.Corrections)
	proposed, proposedAttributes := proposalNames(r.Proposed)
	rec := enrichment.Recorded{Status: r.Status, Proposed: proposed,
		ProposedAttributes: proposedAttributes,
		Approved:           decodeStrings(r.ApprovedFields), ApprovedAttributes: decodeStrings(r.ApprovedAttrs),
		Superseded: decodeStrings(r.Superseded), SupersededAttributes: decodeStrings(r.SupersededAttrs),
		Overwritten: decodeStrings(r.Overwritten), OverwrittenAttributes: decodeStrings(r.OverwrittenAttrs),
		Reverted: decodeStrings(r.RevertedFields), RevertedAttributes: decodeStrings(r.RevertedAttrs)}
	for key := range corrected {
		rec.Corrected = append(rec.Corrected, key)
	}
	return rec
}

// jsonObjectOrNull is a stored JSON object as the API shows it: null when
// it is absent or empty.
func jsonObjectOrNull(raw types.JSONRaw) jsontext.Value {
	if members, err := enrichment.ParseObject("", raw); err != nil || len(members) == 0 {
		return jsontext.Value("null")
	}
	return jsontext.Value(raw)
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
