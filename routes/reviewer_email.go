package routes

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// reviewerEmailChangeRefused answers PocketBase's request-email-change of
// the reviewers' collection with a 403: a superuser changes a reviewer's
// email. The stock route checks that the new address is free among every
// organization's reviewers before anything else, so its answer told a
// reviewer which addresses other organizations' reviewers use.
func reviewerEmailChangeRefused() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "enrichmentReviewerEmailChangeRefused",
		Func: func(e *core.RequestEvent) error {
			if !onCollectionRoute(e, "POST /api/collections/{collection}/request-email-change", schema.Reviewers) {
				return e.Next()
			}
			return e.ForbiddenError("A reviewer's email is changed by a superuser, in the dashboard.", nil)
		},
	}
}
