package hooks

import (
	"github.com/catalog-enrichment/enrichment/schema"
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

// DeciderOf is how a decision by auth is recorded in a revision's reviewer
// field ("reviewer:EMAIL", "superuser:EMAIL"), for the history's
// reviewer=me filter.
func DeciderOf(auth *core.Record) string {
	return decider(auth)
}
