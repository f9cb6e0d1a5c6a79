package hooks

import "github.com/pocketbase/pocketbase/core"

// Decider names the identity acting through an HTTP request as a decision
// records it in reviewer ("reviewer:EMAIL", "superuser:EMAIL"): a route
// that acts on revisions without saving them as records (a rollback's
// revertedBy) records the same name.
func Decider(auth *core.Record) string {
	return decider(auth)
}
