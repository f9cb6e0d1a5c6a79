package hooks

import (
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// deciderReviewerKey is the custom record data in which MarkDecider hands
// the deciding reviewer's record id to the decision hook ("" for a
// superuser), so that the hook can tell their own claim from another's.
const deciderReviewerKey = "@enrichmentDeciderReviewer"

// markReviewer remembers on rev which reviewer decides (none for another
// identity).
func markReviewer(rev, auth *core.Record) {
	reviewer := ""
	if auth != nil && auth.Collection().Name == schema.Reviewers {
		reviewer = auth.Id
	}
	rev.Set(deciderReviewerKey, reviewer)
}

// checkClaim refuses with 409 a person's decision on a pending revision
// that another reviewer's live claim holds, and otherwise ends the claim
// on it, in the decision's transaction (docs/review.md): through the
// records API, the dashboard and the group decisions route alike, as all
// of them save the revision. A superuser holds no claim, so any live claim
// stops them too; they may release it first. Decisions saved by the
// service's own code are not a person's and are not held.
func checkClaim(app core.App, stored, rev *core.Record) error {
	reviewer, _ := rev.GetRaw(deciderReviewerKey).(string)
	claim, err := store.New(app).ClaimOf(enrichment.Org(stored.GetString("organization")), stored.Id)
	if err != nil {
		return err
	}
	if claim.HeldAgainst(reviewer, store.Clock(app)()) {
		return enrichment.ClaimHeld(claim)
	}
	if claim.Reviewer == "" {
		return nil
	}
	// the decision ends the claim, in its transaction (undone with it)
	return store.New(app).DropClaim(stored.Id)
}

// DeciderOf is how a decision by auth is recorded in a revision's reviewer
// field ("reviewer:EMAIL", "superuser:EMAIL"), for the history's
// reviewer=me filter.
func DeciderOf(auth *core.Record) string {
	return decider(auth)
}
