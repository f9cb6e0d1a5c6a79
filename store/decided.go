package store

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
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
	Reviewer  string // "": anyone; else the stored decider, e.g. "reviewer:ann@example.com"
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
	Confidence     int           `json:"confidence"`
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

// Decider is who made a decision: kind reviewer or superuser with the
// person's email, policy (a trust policy, named by the item's policy) or
// system (the service's own code) with none.
type Decider struct {
	Kind  string `json:"kind"`
	Email string `json:"email"`
}

// deciderOf reads the stored decider ("reviewer:EMAIL", "superuser:EMAIL",
// "policy:ID", "system").
func deciderOf(stored string) Decider {
	kind, email, _ := strings.Cut(stored, ":")
	if kind == enrichment.DecidedByPolicy {
		email = ""
	}
	return Decider{Kind: kind, Email: email}
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
	Created     types.DateTime `db:"created"`
	ReviewedAt  types.DateTime `db:"reviewedAt"`
	Reviewer    string         `db:"reviewer"`
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
	err := s.db().NewQuery(`SELECT r.[[_rowid_]] AS [[rowID]], r.[[id]], r.[[sku]], r.[[status]], r.[[confidence]], r.[[created]],
			r.[[reviewedAt]], r.[[reviewer]], r.[[decidedBy]], r.[[policy]], r.[[approvedFields]], r.[[reason]], r.[[comment]], r.[[proposed]], r.[[apiClient]], r.[[product]],
			p.[[name]] AS [[productName]], COALESCE(c.[[name]], '') AS [[clientName]]
		FROM {{` + schema.Revisions + `}} AS r
		LEFT JOIN {{` + schema.Products + `}} AS p ON p.[[id]] = r.[[product]]
		LEFT JOIN {{` + schema.APIClients + `}} AS c ON c.[[id]] = r.[[apiClient]]
		WHERE r.` + sqlparts.InList("_rowid_", "rowIDs")).Bind(dbx.Params{"rowIDs": sqlparts.InValues(rowIDs)}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read the decided revisions: %w", err)
	}
	at := make(map[int64]int, len(rowIDs))
	for i, id := range rowIDs {
		at[id] = i
	}
	slices.SortFunc(rows, func(a, b decidedRow) int { return at[a.RowID] - at[b.RowID] })
	items := make([]DecidedItem, 0, len(rows))
	for _, r := range rows {
		it := DecidedItem{ID: r.ID, SKU: r.SKU, Status: r.Status, Confidence: r.Confidence, Created: apiTime(r.Created),
			ReviewedAt: apiTime(r.ReviewedAt), DecidedBy: decidedOf(r), Reviewer: deciderOf(r.Reviewer), Policy: r.Policy,
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

// ReviewerDecider is the stored decider of the reviewer of one of orgs
// with that record id; not found when none of orgs has that reviewer.
func (s *Review) ReviewerDecider(orgs []enrichment.Org, reviewer string) (string, error) {
	var email string
	err := s.db().Select("email").From(schema.Reviewers).Where(dbx.HashExp{"id": reviewer}).
		AndWhere(dbx.NewExp(sqlparts.InList("organization", "orgs"), dbx.Params{"orgs": sqlparts.InValues(orgs)})).Row(&email)
	if errors.Is(err, sql.ErrNoRows) {
		return "", enrichment.NotFound("reviewer")
	}
	if err != nil {
		return "", fmt.Errorf("reviewer %s: %w", reviewer, err)
	}
	return "reviewer:" + email, nil
}
