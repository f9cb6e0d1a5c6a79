package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// reviewStateRow is a revision with its organization's review policy.
type reviewStateRow struct {
	revisionRow
	TTL           int    `db:"proposalTtlDays"`
	RequireReason bool   `db:"requireReason"`
	Reviewer      string `db:"reviewer"`
	RevertedBy    string `db:"revertedBy"`
	ByRv          string `db:"byReviewerEmail"`
	BySu          string `db:"bySuperuserEmail"`
	RevertRv      string `db:"revertReviewerEmail"`
	RevertSu      string `db:"revertSuperuserEmail"`
}

// ReviewState is revision id of org as its reviewers' page draws it at now
// (enrichment.ReviewStateOf): one query, the revision with its
// organization's policy.
func (s *Review) ReviewState(org enrichment.Org, id string, now time.Time) (enrichment.ReviewState, error) {
	cols := make([]string, 0, len(revisionColumns))
	for _, c := range revisionColumns {
		cols = append(cols, "r.[["+c+"]]")
	}
	var row reviewStateRow
	err := s.db().NewQuery(`SELECT ` + strings.Join(cols, ", ") + `, o.[[proposalTtlDays]], o.[[requireReason]], r.[[reviewer]], r.[[revertedBy]], ` +
		actorColumns("by") + `, ` + actorColumns("revert") + `
		FROM {{` + schema.Revisions + `}} AS r INNER JOIN {{` + schema.Organizations + `}} AS o ON o.[[id]] = r.[[organization]]` +
		actorJoins("reviewer", "by") + actorJoins("revertedBy", "revert") + `
		WHERE r.[[id]] = {:id} AND r.[[organization]] = {:org}`).Bind(dbx.Params{"id": id, "org": string(org)}).One(&row)
	if errors.Is(err, sql.ErrNoRows) {
		return enrichment.ReviewState{}, enrichment.NotFound("revision")
	}
	if err != nil {
		return enrichment.ReviewState{}, fmt.Errorf("review state of revision %s of organization %s: %w", id, org, err)
	}
	policy := enrichment.ReviewPolicy{TTLDays: row.TTL, RequireReason: row.RequireReason}
	state := enrichment.ReviewStateOf(row.recorded(), row.Created.Time(), policy, now)
	if row.Reviewer != "" {
		state.Reviewer = deciderOf(row.Reviewer, row.ByRv, row.BySu).Name()
	}
	if row.RevertedBy != "" {
		state.RevertedBy = deciderOf(row.RevertedBy, row.RevertRv, row.RevertSu).Name()
	}
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
