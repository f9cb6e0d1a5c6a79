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
	// deciderKey holds the deciding identity's name, as Decider names it.
	deciderKey = "@enrichmentDecider"
	// deciderReviewerKey holds the deciding reviewer's record id ("" for
	// another identity), so that their own claim does not stop them.
	deciderReviewerKey = "@enrichmentDeciderReviewer"
)

// systemDecider is the reviewer recorded for decisions saved by Go code.
const systemDecider = "system"

// Decider names the identity acting through an HTTP request as a decision
// records it in reviewer ("reviewer:EMAIL", "superuser:EMAIL"): the
// history's reviewer=me filter and a rollback's revertedBy use the same
// name.
func Decider(auth *core.Record) string {
	if auth == nil {
		return "guest"
	}
	who := auth.Email()
	if who == "" {
		who = auth.Id
	}
	switch {
	case auth.IsSuperuser():
		return "superuser:" + who
	case auth.Collection().Name == schema.Reviewers:
		return "reviewer:" + who
	}
	return auth.Collection().Name + ":" + who
}

// Deciding is who decides through an HTTP request, as the set path of
// decisions (store.DecideSet) takes it.
func Deciding(auth *core.Record) store.SetDecider {
	who := store.SetDecider{Name: Decider(auth)}
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
