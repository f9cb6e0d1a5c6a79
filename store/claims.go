package store

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Reviewers' claims (docs/review.md): one row per claimed revision in the
// review_claims collection, written with SQL. A claim is live while its
// expiresAt is after the clock's now; an expired one is simply overwritten
// by the next claim, so nothing needs to clean up for the rules to hold.

// claimRow is a claim as read, with its reviewer's email and name.
type claimRow struct {
	Revision  string         `db:"revision"`
	Reviewer  string         `db:"reviewer"`
	Email     string         `db:"email"`
	Name      string         `db:"name"`
	ExpiresAt types.DateTime `db:"expiresAt"`
}

func (r claimRow) claim() enrichment.Claim {
	return enrichment.Claim{Revision: r.Revision, Reviewer: r.Reviewer, Email: r.Email, Name: r.Name, ExpiresAt: r.ExpiresAt.Time()}
}

// claimSelect reads claims with their reviewers' names.
const claimSelect = `SELECT c.[[revision]], c.[[reviewer]], COALESCE(r.[[email]], '') AS [[email]], COALESCE(r.[[name]], '') AS [[name]], c.[[expiresAt]]
	FROM {{` + schema.ReviewClaims + `}} AS c LEFT JOIN {{` + schema.Reviewers + `}} AS r ON r.[[id]] = c.[[reviewer]] `

// ClaimOf is the claim on org's revision, live or not; the zero Claim when
// there is none.
func (s *Review) ClaimOf(org enrichment.Org, revision string) (enrichment.Claim, error) {
	var row claimRow
	err := s.db().NewQuery(claimSelect + `WHERE c.[[revision]] = {:revision} AND c.[[organization]] = {:org}`).
		Bind(dbx.Params{"revision": revision, "org": string(org)}).One(&row)
	if errors.Is(err, sql.ErrNoRows) {
		return enrichment.Claim{}, nil
	}
	if err != nil {
		return enrichment.Claim{}, fmt.Errorf("claim on revision %s: %w", revision, err)
	}
	return row.claim(), nil
}

// LiveClaims are the live claims at now on those of the revisions of orgs
// that have one, by revision id.
func (s *Review) LiveClaims(orgs []enrichment.Org, revisions []string, now time.Time) (map[string]enrichment.Claim, error) {
	out := map[string]enrichment.Claim{}
	if len(revisions) == 0 {
		return out, nil
	}
	var rows []claimRow
	err := s.db().NewQuery(claimSelect + `WHERE c.` + sqlparts.InList("revision", "revisions") + ` AND c.` + sqlparts.InList("organization", "orgs") +
		` AND c.[[expiresAt]] > {:now}`).
		Bind(dbx.Params{"revisions": sqlparts.InValues(revisions), "orgs": sqlparts.InValues(orgs), "now": FormatTime(now)}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("live claims: %w", err)
	}
	for _, r := range rows {
		out[r.Revision] = r.claim()
	}
	return out, nil
}

// Claim claims org's pending revision for reviewer (a reviewer's record
// id) until now + enrichment.ClaimTTL, or renews reviewer's claim on it.
// It refuses, as a conflict, a revision that is no longer pending or that
// another reviewer's live claim holds (enrichment.ClaimHeld); a revision
// of another organization is not found.
func (s *Review) Claim(org enrichment.Org, revision int64, reviewer string, now time.Time) (enrichment.Claim, error) {
	id := FormatID(revision)
	var claim enrichment.Claim
	err := s.Transaction(func(tx *Store) error {
		var status string
		err := tx.db().Select("status").From(schema.Revisions).Where(dbx.HashExp{"id": id}).AndWhere(sqlparts.ByIDsOf(org)).Row(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return enrichment.NotFound("revision")
		}
		if err != nil {
			return fmt.Errorf("read revision %s: %w", id, err)
		}
		if status != enrichment.StatusPending {
			return &enrichment.Error{Code: enrichment.CodeConflict, Field: "status", Rule: "validation_not_pending",
				Message: fmt.Sprintf("Revision %s is %s: only pending revisions can be claimed.", id, status),
				Detail:  "The revision is " + status + "."}
		}
		held, err := tx.Review().ClaimOf(org, id)
		if err != nil {
			return err
		}
		if held.HeldAgainst(reviewer, now) {
			return enrichment.ClaimHeld(held)
		}
		at, until := FormatTime(now), FormatTime(now.Add(enrichment.ClaimTTL))
		_, err = tx.db().NewQuery(`INSERT INTO {{` + schema.ReviewClaims + `}}
				([[id]], [[organization]], [[revision]], [[reviewer]], [[expiresAt]], [[created]], [[updated]])
			VALUES ({:id}, {:org}, {:revision}, {:reviewer}, {:until}, {:at}, {:at})
			ON CONFLICT ([[revision]]) DO UPDATE SET [[reviewer]] = excluded.[[reviewer]],
				[[expiresAt]] = excluded.[[expiresAt]], [[updated]] = excluded.[[updated]]`).
			Bind(dbx.Params{"id": core.GenerateDefaultRandomId(), "org": string(org), "revision": id,
				"reviewer": reviewer, "until": until, "at": at}).Execute()
		if err != nil {
			return fmt.Errorf("claim revision %s: %w", id, err)
		}
		claim, err = tx.Review().ClaimOf(org, id)
		return err
	})
	return claim, err
}

// ReleaseClaim ends the claim on org's revision: reviewer's own, or, when
// anyone is true (a superuser), whoever's. Another reviewer's live claim
// is refused as a conflict (enrichment.ClaimHeld); releasing a revision
// that nobody holds does nothing; a revision of another organization is
// not found.
func (s *Review) ReleaseClaim(org enrichment.Org, revision int64, reviewer string, anyone bool, now time.Time) error {
	id := FormatID(revision)
	return s.Transaction(func(tx *Store) error {
		var n int
		err := tx.db().Select("COUNT(*)").From(schema.Revisions).Where(dbx.HashExp{"id": id}).AndWhere(sqlparts.ByIDsOf(org)).Row(&n)
		if err != nil {
			return fmt.Errorf("read revision %s: %w", id, err)
		}
		if n == 0 {
			return enrichment.NotFound("revision")
		}
		held, err := tx.Review().ClaimOf(org, id)
		if err != nil {
			return err
		}
		if held.Reviewer == "" {
			return nil
		}
		if !anyone && held.HeldAgainst(reviewer, now) {
			return enrichment.ClaimHeld(held)
		}
		_, err = tx.db().Delete(schema.ReviewClaims, dbx.HashExp{"revision": id}).Execute()
		if err != nil {
			return fmt.Errorf("release the claim on revision %s: %w", id, err)
		}
		return nil
	})
}

// othersClaimedRows are the rowids of orgs' revisions held at now by a
// live claim of anyone but viewer (a reviewer's record id; "": anyone's).
// The queue leaves them out by rowid, which its index holds; there are
// few, and none at all is the common case, which then costs the queue
// nothing.
func (s *Review) othersClaimedRows(orgs []enrichment.Org, viewer string, now time.Time) ([]int64, error) {
	var rows []int64
	err := s.db().NewQuery(`SELECT x.[[_rowid_]] FROM {{` + schema.ReviewClaims + `}} AS c
		JOIN {{` + schema.Revisions + `}} AS x ON x.[[id]] = c.[[revision]]
		WHERE c.` + sqlparts.InList("organization", "orgs") + ` AND c.[[expiresAt]] > {:now} AND c.[[reviewer]] != {:viewer}`).
		Bind(dbx.Params{"orgs": sqlparts.InValues(orgs), "now": FormatTime(now), "viewer": viewer}).Column(&rows)
	if err != nil {
		return nil, fmt.Errorf("revisions claimed by others: %w", err)
	}
	return rows, nil
}

// RevisionOrg is which of orgs the revision belongs to; not found when
// none of them.
func (s *Review) RevisionOrg(orgs []enrichment.Org, revision int64) (enrichment.Org, error) {
	var org string
	err := s.db().Select("organization").From(schema.Revisions).Where(dbx.HashExp{"id": FormatID(revision)}).Row(&org)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !slices.Contains(orgs, enrichment.Org(org))) {
		return "", enrichment.NotFound("revision")
	}
	if err != nil {
		return "", fmt.Errorf("organization of revision %d: %w", revision, err)
	}
	return enrichment.Org(org), nil
}

// RevisionOrgs maps those of the revisions that belong to one of orgs to
// their organization; the others are left out.
func (s *Review) RevisionOrgs(orgs []enrichment.Org, revisions []string) (map[string]enrichment.Org, error) {
	var rows []struct {
		ID  string `db:"id"`
		Org string `db:"organization"`
	}
	err := s.db().Select("id", "organization").From(schema.Revisions).Where(sqlparts.In("id", revisions)).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("organizations of revisions: %w", err)
	}
	out := make(map[string]enrichment.Org, len(rows))
	for _, r := range rows {
		if slices.Contains(orgs, enrichment.Org(r.Org)) {
			out[r.ID] = enrichment.Org(r.Org)
		}
	}
	return out, nil
}
