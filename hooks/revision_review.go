package hooks

import (
	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// reviewKey is the member of a revision, in the records API and realtime,
// that carries its review state (enrichment.ReviewState): what the
// reviewers' page draws rather than works out itself.
const reviewKey = "review"

// registerRevisionReview adds the review state to every revision the
// records API or realtime sends to a reviewer of its organization or to a
// superuser (API clients never read revisions there), and shows a
// confidence that was never given as null.
func registerRevisionReview(app core.App) {
	app.OnRecordEnrich(schema.Revisions).Bind(&hook.Handler[*core.RecordEnrichEvent]{
		Id: "enrichmentRevisionReview",
		Func: func(e *core.RecordEnrichEvent) error {
			if err := e.Next(); err != nil {
				return err
			}
			// note: a number column is never null, so a revision submitted
			// without confidence stores 0 with no band; it is shown null,
			// as the API shows it (only the answer's copy is changed)
			if e.Record.GetString("confidenceBand") == "" {
				e.Record.SetRaw("confidence", nil)
			}
			org := e.Record.GetString("organization")
			if !reviewsFor(e.RequestInfo, org) {
				return nil
			}
			state, err := store.New(e.App).Review().ReviewState(enrichment.Org(org), e.Record.Id, clock.Now(e.App))
			if err != nil {
				return err
			}
			e.Record.Set(reviewKey, state)
			// note: exporting custom data exports all of it; the hooks' own
			// (the decider handed from the request hook, say) stays hidden
			for key := range e.Record.CustomData() {
				if key != reviewKey {
					e.Record.Hide(key)
				}
			}
			e.Record.WithCustomData(true)
			return nil
		},
	})
}

// reviewsFor reports whether the identity of info reviews org's revisions:
// a superuser, or a reviewer of org.
func reviewsFor(info *core.RequestInfo, org string) bool {
	if info == nil || info.Auth == nil {
		return false
	}
	if info.Auth.IsSuperuser() {
		return true
	}
	return info.Auth.Collection().Name == schema.Reviewers && info.Auth.GetString("organization") == org
}
