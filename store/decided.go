package store

import (
	"fmt"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// The history of decisions (docs/review.md): an organization's decided
// revisions, newest decision first, a page at a time. Decided means a
// decision was made (reviewedAt is set), whatever happened to the
// revision since. The partial index of decided revisions by organization
// and reviewedAt (schema.IdxRevisionsDecidedHistory) holds the columns the
// filters read, so the order and the count come from its entries and only
// the page's rows are read.

// DecidedQuery selects a page of the history.
type DecidedQuery struct {
	Reviewer  string // "": anyone; else a reviewer's or superuser's record id
	DecidedBy string // "": any; else enrichment.DecidedByReviewer or enrichment.DecidedByPolicy
	Client    int64  // 0: every client
	Window           // since < reviewedAt < until; zero times leave that end open
	Page      int    // zero-based
	PageSize  int
}

// DecidedItem is one decided revision of the history.
type DecidedItem struct {
	ID             string        `json:"id"`
	SKU            string        `json:"sku"`
	Status         string        `json:"status"`
	Confidence     *int          `json:"confidence"` // null when submitted without
	Created        string        `json:"created"`
	ReviewedAt     string        `json:"reviewedAt"`
	DecidedBy      string        `json:"decidedBy"`
	Reviewer       Decider       `json:"reviewer"`
	Policy         string        `json:"policy"` // the trust policy that decided, "" for a person
	ApprovedFields []string      `json:"approvedFields"`
	Applied        []string      `json:"applied"` // the fields its acceptance applied, in API order; none unless accepted
	Reason         string        `json:"reason"`
	Comment        string        `json:"comment"`
	Proposed       types.JSONRaw `json:"proposed"`
	APIClient      string        `json:"apiClient"`
	Product        string        `json:"product"`
	Expand         QueueExpand   `json:"expand"`
}

// Decider is who made a decision (or rolled one back): kind reviewer or
// superuser with the person's record id and email; policy (a trust policy,
// named by the item's policy) or system (the service's own code) with
// neither; deleted with the id of an account deleted since.
type Decider struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Email string `json:"email"`
}

// The kinds of Decider that are not a decision's decidedBy.
const (
	deciderSuperuser = "superuser"
	deciderSystem    = "system"
	deciderDeleted   = "deleted"
)

// actorJoins joins, to the revisions r, the reviewer and the superuser
// whose record id column col of r holds, as rv<alias> and su<alias>, for
// actorColumns to read their emails.
func actorJoins(col, alias string) string {
	return ` LEFT JOIN {{` + schema.Reviewers + `}} AS rv` + alias + ` ON rv` + alias + `.[[id]] = r.[[` + col + `]]` +
		` LEFT JOIN {{` + core.CollectionNameSuperusers + `}} AS su` + alias + ` ON su` + alias + `.[[id]] = r.[[` + col + `]]`
}

// actorColumns reads the emails actorJoins joined, as <alias>ReviewerEmail
// and <alias>SuperuserEmail.
func actorColumns(alias string) string {
	return `COALESCE(rv` + alias + `.[[email]], '') AS [[` + alias + `ReviewerEmail]], COALESCE(su` + alias + `.[[email]], '') AS [[` + alias + `SuperuserEmail]]`
}

// deciderOf names a stored actor (a revision's reviewer or revertedBy):
// the record id of a reviewer or superuser, whose email the query joined
// (reviewerEmail or superuserEmail); "policy:ID"; "system"; or a name
// earlier releases wrote ("reviewer:EMAIL", "superuser:EMAIL") for an
// account that the upgrade found no more.
func deciderOf(stored, reviewerEmail, superuserEmail string) Decider {
	switch {
	case reviewerEmail != "":
		return Decider{Kind: enrichment.DecidedByReviewer, ID: stored, Email: reviewerEmail}
	case superuserEmail != "":
		return Decider{Kind: deciderSuperuser, ID: stored, Email: superuserEmail}
	case stored == deciderSystem:
		return Decider{Kind: deciderSystem}
	}
	kind, email, named := strings.Cut(stored, ":")
	switch {
	case !named:
		return Decider{Kind: deciderDeleted, ID: stored}
	case kind == enrichment.DecidedByPolicy:
		return Decider{Kind: kind}
	}
	return Decider{Kind: kind, Email: email}
}

// Name is how the reviewers' page names d: "reviewer:EMAIL",
// "superuser:EMAIL", "system", "policy", or a deleted account's id.
func (d Decider) Name() string {
	switch {
	case d.Email != "":
		return d.Kind + ":" + d.Email
	case d.Kind == deciderDeleted:
		return d.ID
	}
	return d.Kind
}

// decidedWhere is the condition of orgs' decided revisions that match q.
func decidedWhere(orgs []enrichment.Org, q DecidedQuery) (string, dbx.Params) {
	// note: the literal reviewedAt != '' lets SQLite use the partial index
	where := []string{sqlparts.InList("organization", "orgs"), "[[reviewedAt]] != ''"}
	params := dbx.Params{"orgs": sqlparts.InValues(orgs)}
	if q.Reviewer != "" {
		where = append(where, "[[reviewer]] = {:reviewer}")
		params["reviewer"] = q.Reviewer
	}
	if q.Client != 0 {
		where = append(where, "[[apiClient]] = {:client}")
		params["client"] = FormatID(q.Client)
	}
	if !q.Since.IsZero() {
		where = append(where, "[[reviewedAt]] > {:since}")
		params["since"] = FormatTime(q.Since)
	}
	if !q.Until.IsZero() {
		where = append(where, "[[reviewedAt]] < {:until}")
		params["until"] = FormatTime(q.Until)
	}
	if q.DecidedBy != "" {
		where = append(where, "[[decidedBy]] = {:decidedBy}")
		params["decidedBy"] = q.DecidedBy
	}
	return strings.Join(where, " AND "), params
}

// decidedOf names a stored decision's decider as the decidedBy filter does
// (a person's when the revision predates the field).
func decidedOf(row decidedRow) string {
	if row.DecidedBy == "" {
		return enrichment.DecidedByReviewer
	}
	return row.DecidedBy
}

// Decided reads a page of the history of orgs' decisions, newest first
// (ties newest submitted first).
func (s *Review) Decided(orgs []enrichment.Org, q DecidedQuery) (enrichment.Page[DecidedItem], error) {
	where, params := decidedWhere(orgs, q)
	from := " FROM {{" + schema.Revisions + "}} INDEXED BY " + schema.IdxRevisionsDecidedHistory + " WHERE " + where
	var total int
	if err := s.db().NewQuery("SELECT COUNT(*)" + from).Bind(params).Row(&total); err != nil {
		return enrichment.Page[DecidedItem]{}, fmt.Errorf("count the decided revisions: %w", err)
	}
	var rowIDs []int64
	if q.Page*q.PageSize < total {
		params["limit"], params["offset"] = q.PageSize, q.Page*q.PageSize
		err := s.db().NewQuery("SELECT [[_rowid_]]" + from + " ORDER BY [[reviewedAt]] DESC, [[_rowid_]] DESC LIMIT {:limit} OFFSET {:offset}").
			Bind(params).Column(&rowIDs)
		if err != nil {
			return enrichment.Page[DecidedItem]{}, fmt.Errorf("list the decided revisions: %w", err)
		}
	}
	items, err := s.decidedItems(rowIDs)
	if err != nil {
		return enrichment.Page[DecidedItem]{}, err
	}
	return enrichment.NewPage(items, q.Page, q.PageSize, total), nil
}

// decidedRow is a decided revision as read.
type decidedRow struct {
	RowID       int64          `db:"rowID"`
	ID          string         `db:"id"`
	SKU         string         `db:"sku"`
	Status      string         `db:"status"`
	Confidence  int            `db:"confidence"`
	Band        string         `db:"confidenceBand"`
	Created     types.DateTime `db:"created"`
	ReviewedAt  types.DateTime `db:"reviewedAt"`
	Reviewer    string         `db:"reviewer"`
	ReviewerRv  string         `db:"byReviewerEmail"`
	ReviewerSu  string         `db:"bySuperuserEmail"`
	DecidedBy   string         `db:"decidedBy"`
	Policy      string         `db:"policy"`
	Approved    types.JSONRaw  `db:"approvedFields"`
	Reason      string         `db:"reason"`
	Comment     string         `db:"comment"`
	Proposed    types.JSONRaw  `db:"proposed"`
	APIClient   string         `db:"apiClient"`
	Product     string         `db:"product"`
	ProductName *string        `db:"productName"`
	ClientName  string         `db:"clientName"`
}

// decidedItems reads the revisions with the given rowids, in that order.
func (s *Review) decidedItems(rowIDs []int64) ([]DecidedItem, error) {
	if len(rowIDs) == 0 {
		return []DecidedItem{}, nil
	}
	var rows []decidedRow
	err := s.db().NewQuery(`SELECT r.[[_rowid_]] AS [[rowID]], r.[[id]], r.[[sku]], r.[[status]], r.[[confidence]], r.[[confidenceBand]], r.[[created]],
			r.[[reviewedAt]], r.[[reviewer]], r.[[decidedBy]], r.[[policy]], r.[[approvedFields]], r.[[reason]], r.[[comment]], r.[[proposed]], r.[[apiClient]], r.[[product]],
			p.[[name]] AS [[productName]], COALESCE(c.[[name]], '') AS [[clientName]], ` + actorColumns("by") + `
		FROM {{` + schema.Revisions + `}} AS r` + actorJoins("reviewer", "by") + `
		LEFT JOIN {{` + schema.Products + `}} AS p ON p.[[id]] = r.[[product]]
		LEFT JOIN {{` + schema.APIClients + `}} AS c ON c.[[id]] = r.[[apiClient]]
		WHERE r.` + sqlparts.InList("_rowid_", "rowIDs")).Bind(dbx.Params{"rowIDs": sqlparts.InValues(rowIDs)}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read the decided revisions: %w", err)
	}
	sortInOrder(rows, rowIDs, func(r decidedRow) int64 { return r.RowID })
	items := make([]DecidedItem, 0, len(rows))
	for _, r := range rows {
		it := DecidedItem{ID: r.ID, SKU: r.SKU, Status: r.Status, Confidence: enrichment.StatedConfidence(r.Confidence, r.Band), Created: apiTime(r.Created),
			ReviewedAt: apiTime(r.ReviewedAt), DecidedBy: decidedOf(r), Reviewer: deciderOf(r.Reviewer, r.ReviewerRv, r.ReviewerSu), Policy: r.Policy,
			ApprovedFields: decodeStrings(r.Approved), Reason: r.Reason, Comment: r.Comment, Proposed: r.Proposed,
			APIClient: r.APIClient, Product: r.Product, Expand: QueueExpand{APIClient: &named{ID: r.APIClient, Name: r.ClientName}}}
		proposed, _ := proposalNames(r.Proposed)
		it.Applied = enrichment.Recorded{Status: r.Status, Proposed: proposed, Approved: it.ApprovedFields}.AppliedFields()
		if r.ProductName != nil {
			it.Expand.Product = &named{ID: r.Product, Name: *r.ProductName}
		}
		items = append(items, it)
	}
	return items, nil
}

// FindDecider is nil when reviewer is the record id of a reviewer of one
// of orgs or of a superuser (who decides for every organization), and not
// found otherwise.
func (s *Review) FindDecider(orgs []enrichment.Org, reviewer string) error {
	var n int
	err := s.db().NewQuery(`SELECT (SELECT COUNT(*) FROM {{` + schema.Reviewers + `}} WHERE [[id]] = {:id} AND ` +
		sqlparts.InList("organization", "orgs") + `) + (SELECT COUNT(*) FROM {{` + core.CollectionNameSuperusers + `}} WHERE [[id]] = {:id})`).
		Bind(dbx.Params{"id": reviewer, "orgs": sqlparts.InValues(orgs)}).Row(&n)
	if err != nil {
		return fmt.Errorf("reviewer %s: %w", reviewer, err)
	}
	if n == 0 {
		return enrichment.NotFound("reviewer")
	}
	return nil
}
