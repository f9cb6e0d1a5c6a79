package schema

// Names of the reviewers working together (docs/review.md): claims and the
// history of decisions.
const (
	// ReviewClaims is the collection of reviewers' claims on pending
	// revisions (one per revision; superusers only in the dashboard).
	ReviewClaims = "review_claims"
	// IdxRevisionsDecidedHistory holds an organization's decided revisions
	// by reviewedAt, with the client, the reviewer and decidedBy (partial:
	// reviewedAt != ''), for the history newest decision first.
	IdxRevisionsDecidedHistory = "idx_revisions_decided_history"
)
