package routes

import (
	"net/http"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/hooks"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

var decidedRoutes = []route{
	{Method: http.MethodGet, Path: "/review/decided", Reviewer: true, Handler: reviewDecided},
}

// reviewDecided answers the history of decisions: the organization's
// decided revisions, newest decision first, a page at a time, filtered by
// reviewer (a reviewer's or superuser's id, or me), decidedBy, client and the window
// since < reviewedAt < until (docs/api.md).
func reviewDecided(e *core.RequestEvent) error {
	orgs, err := reviewedOrgs(e)
	if err != nil {
		return err
	}
	values := e.Request.URL.Query()
	errs := validation.Errors{}
	var q store.DecidedQuery
	q.Page, q.PageSize = readPaging(values, errs)
	if q.Since, err = queryTime(values, "since"); err != nil {
		errs["since"] = err
	}
	if q.Until, err = queryTime(values, "until"); err != nil {
		errs["until"] = err
	}
	if raw := values.Get("client"); raw != "" {
		if q.Client, err = enrichment.ParseID(raw); err != nil {
			errs["client"] = validation.NewError("validation_invalid_id", "must be a record id")
		}
	}
	switch q.DecidedBy = values.Get("decidedBy"); q.DecidedBy {
	case "", enrichment.DecidedByReviewer, enrichment.DecidedByPolicy:
	default:
		errs["decidedBy"] = validation.NewError("validation_in_invalid", "must be reviewer or policy")
	}
	if len(errs) > 0 {
		return e.BadRequestError(firstMessage(errs), errs)
	}
	switch reviewer := values.Get("reviewer"); reviewer {
	case "":
	case "me":
		q.Reviewer = hooks.Actor(e.Auth)
	default:
		if err := store.New(e.App).Review().FindDecider(orgs, reviewer); err != nil {
			return notFoundOr(e, "find a reviewer", err)
		}
		q.Reviewer = reviewer
	}
	page, err := store.New(e.App).Review().Decided(orgs, q)
	if err != nil {
		return internalError(e, "read the decided revisions", err)
	}
	return e.JSON(http.StatusOK, page)
}
