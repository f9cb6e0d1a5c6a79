package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// reviewStateRow is a revision with its organization's review policy.
type reviewStateRow struct {
	revisionRow
	TTL           int    `db:"proposalTtlDays"`
	RequireReason bool   `db:"requireReason"`
	RevertedBy    string `db:"revertedBy"`
	ReviewerEmail string `db:"reviewerEmail"`
	SuperEmail    string `db:"superuserEmail"`
}

// revertedBy names who rolled row back as a decision's reviewer is named:
// its revertedBy is a reviewer's or a superuser's record id, or "system".
func (row reviewStateRow) revertedBy() string {
	switch {
	case row.RevertedBy == "":
		return ""
	case row.ReviewerEmail != "":
		return "reviewer:" + row.ReviewerEmail
	case row.SuperEmail != "":
		return "superuser:" + row.SuperEmail
	}
	return row.RevertedBy
}

// ReviewState is revision id of org as its reviewers' page draws it at now
// (enrichment.ReviewStateOf): one query, the revision with its
// organization's policy.
func (s *Review) ReviewState(org enrichment.Org, id string, now time.Time) (enrichment.ReviewState, error) {
	cols := make([]string, 0, len(revisionColumns)+5)
	for _, c := range revisionColumns {
		cols = append(cols, "r.[["+c+"]]")
	}
	cols = append(cols, "o.[[proposalTtlDays]]", "o.[[requireReason]]", "r.[[revertedBy]]",
		"COALESCE(rv.[[email]], '') AS reviewerEmail", "COALESCE(su.[[email]], '') AS superuserEmail")
	var row reviewStateRow
	err := s.db().Select(cols...).From(schema.Revisions+" r").
		InnerJoin(schema.Organizations+" o", dbx.NewExp("o.[[id]] = r.[[organization]]")).
		LeftJoin(schema.Reviewers+" rv", dbx.NewExp("rv.[[id]] = r.[[revertedBy]] AND r.[[revertedBy]] != ''")).
		LeftJoin(core.CollectionNameSuperusers+" su", dbx.NewExp("su.[[id]] = r.[[revertedBy]] AND r.[[revertedBy]] != ''")).
		Where(dbx.HashExp{"r.id": id, "r.organization": string(org)}).One(&row)
	if errors.Is(err, sql.ErrNoRows) {
		return enrichment.ReviewState{}, enrichment.NotFound("revision")
	}
	if err != nil {
		return enrichment.ReviewState{}, fmt.Errorf("review state of revision %s of organization %s: %w", id, org, err)
	}
	policy := enrichment.ReviewPolicy{TTLDays: row.TTL, RequireReason: row.RequireReason}
	state := enrichment.ReviewStateOf(row.recorded(), row.Created.Time(), policy, now)
	state.RevertedBy = row.revertedBy()
	return state, nil
}

// ReasonRequired reports whether any of orgs requires a reason for what a
// decision leaves unapplied: then a group rejection of their revisions
// needs one.
func (s *Review) ReasonRequired(orgs []enrichment.Org) (bool, error) {
	var n int
	err := s.db().Select("COUNT(*)").From(schema.Organizations).
		Where(dbx.NewExp(sqlparts.InList("id", "orgs")+" AND [[requireReason]] = TRUE", dbx.Params{"orgs": sqlparts.InValues(orgs)})).Row(&n)
	if err != nil {
		return false, fmt.Errorf("whether organizations %v require a reason: %w", orgs, err)
	}
	return n > 0, nil
}
