package hooks

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// Who decides. A decision through an HTTP request records the identity
// that sent it; one saved by Go code records the service ("system"). The
// update request hook (or a route that saves a revision itself) marks the
// identity on the record, in custom data that is never stored nor
// exported, and the record hook reads it back.

const (
	// deciderKey holds the deciding identity, as Actor names it.
	deciderKey = "@enrichmentDecider"
	// deciderReviewerKey holds the deciding reviewer's record id ("" for
	// another identity), so that their own claim does not stop them.
	deciderReviewerKey = "@enrichmentDeciderReviewer"
)

// systemDecider is the reviewer recorded for decisions saved by Go code.
const systemDecider = "system"

// Actor is who acts through an HTTP request as a revision records it, in
// reviewer for a decision and in revertedBy for a rollback: the record id
// of the reviewer or superuser, or "system" for the service's own code.
// The history's reviewer=me filter reads the same id.
func Actor(auth *core.Record) string {
	if auth == nil {
		return systemDecider
	}
	return auth.Id
}

// Deciding is who decides through an HTTP request, as the set path of
// decisions (store.DecideSet) takes it.
func Deciding(auth *core.Record) store.SetDecider {
	who := store.SetDecider{Name: Actor(auth)}
	if auth != nil && auth.Collection().Name == schema.Reviewers {
		who.Reviewer = auth.Id
	}
	return who
}

// MarkDecider hands the identity deciding through an HTTP request to the
// decision hook, for a revision that a route saves with Go code rather than
// through the records API (whose update request hook does the same); the
// decision then records that identity, not "system".
func MarkDecider(rev, auth *core.Record) {
	who := Deciding(auth)
	rev.Set(deciderKey, who.Name)
	rev.Set(deciderReviewerKey, who.Reviewer)
}

// rollerOf is who rolls back rev as its update's side effect (a reverted
// audit): the identity MarkDecider marked on it, or else the service.
func rollerOf(rev *core.Record) string {
	if id, ok := rev.GetRaw(deciderKey).(string); ok && id != "" {
		return id
	}
	return systemDecider
}

// deciderOf is who decides the update of rev: the identity MarkDecider
// marked on it, or else the service itself.
func deciderOf(rev *core.Record) store.SetDecider {
	name, fromRequest := rev.GetRaw(deciderKey).(string)
	if !fromRequest {
		return store.SetDecider{Name: systemDecider, Service: true}
	}
	reviewer, _ := rev.GetRaw(deciderReviewerKey).(string)
	return store.SetDecider{Name: name, Reviewer: reviewer}
}
