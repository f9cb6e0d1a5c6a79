package routes

import (
	"net/http"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

var claimRoutes = []route{
	{Method: http.MethodPost, Path: "/review/claims/{revisionId}", Reviewer: true, Handler: reviewClaim},
	{Method: http.MethodDelete, Path: "/review/claims/{revisionId}", Reviewer: true, Handler: reviewRelease},
}

// claimAnswer is a claim as the claims route answers it.
type claimAnswer struct {
	Revision  string     `json:"revision"`
	Reviewer  claimOwner `json:"reviewer"`
	ExpiresAt string     `json:"expiresAt"`
}

// claimOwner names a claim's reviewer for the page.
type claimOwner struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
}

// reviewClaim claims a pending revision of the reviewer's organization for
// them for enrichment.ClaimTTL, or renews their claim (docs/review.md):
// 409 naming the holder when another reviewer's live claim holds it, 409
// when it is no longer pending, 404 for a revision of another
// organization. Claims are a reviewer's: a superuser gets 403.
func reviewClaim(e *core.RequestEvent) error {
	if e.Auth.Collection().Name != schema.Reviewers {
		return e.ForbiddenError("Only reviewers claim revisions; a superuser may release a claim.", nil)
	}
	id, err := enrichment.ParseID(e.Request.PathValue("revisionId"))
	if err != nil {
		return e.NotFoundError("No such revision.", nil)
	}
	org := enrichment.Org(e.Auth.GetString("organization"))
	st := store.New(e.App)
	// note: a revision that is not there is 404 before the body is read,
	// so a stalled body never holds that answer
	if _, err := st.Review().RevisionOrg([]enrichment.Org{org}, id); err != nil {
		return notFoundOr(e, "find a revision to claim", err)
	}
	if err := readNoBody(e); err != nil {
		return err
	}
	c, err := st.Review().Claim(org, id, e.Auth.Id, clock.Now(e.App))
	if err != nil {
		return notFoundOr(e, "claim a revision", err)
	}
	return e.JSON(http.StatusOK, claimAnswer{Revision: c.Revision, ExpiresAt: c.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000Z"),
		Reviewer: claimOwner{ID: c.Reviewer, Email: c.Email, Name: c.Name}})
}

// reviewRelease releases a claim: a reviewer their own (409 naming the
// holder for another's live claim), a superuser anyone's. Releasing a
// revision nobody holds is no error. 204 with no body.
func reviewRelease(e *core.RequestEvent) error {
	id, err := enrichment.ParseID(e.Request.PathValue("revisionId"))
	if err != nil {
		return e.NotFoundError("No such revision.", nil)
	}
	orgs, err := reviewedOrgs(e)
	if err != nil {
		return err
	}
	st := store.New(e.App)
	org, err := st.Review().RevisionOrg(orgs, id)
	if err != nil {
		return notFoundOr(e, "find a claimed revision", err)
	}
	if err := readNoBody(e); err != nil {
		return err
	}
	reviewer := ""
	if !e.HasSuperuserAuth() {
		reviewer = e.Auth.Id
	}
	if err := st.Review().ReleaseClaim(org, id, reviewer, e.HasSuperuserAuth(), clock.Now(e.App)); err != nil {
		return notFoundOr(e, "release a claim", err)
	}
	return e.NoContent(http.StatusNoContent)
}
