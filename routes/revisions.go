package routes

import (
	"net/http"
	"slices"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

var revisionRoutes = []route{
	{Method: http.MethodGet, Path: "/revisions", Scope: enrichment.ScopeRead, Handler: revisionsList},
}

// revisionsList returns one page of the calling API client's own revisions,
// each with the outcome of every proposed field (an extension, docs/api.md).
func revisionsList(e *core.RequestEvent) error {
	q, err := readRevisionQuery(e)
	if err != nil {
		return err
	}
	page, err := store.New(e.App).Proposals().ClientRevisions(requestOrg(e), requestClient(e).ID, q)
	if err != nil {
		return internalError(e, "list revisions", err)
	}
	return jsonTagged(e, page)
}

// readRevisionQuery reads page and pageSize as the export does, the status
// and sku filters, and since; 400 naming the first bad parameter.
func readRevisionQuery(e *core.RequestEvent) (store.RevisionQuery, error) {
	values := e.Request.URL.Query()
	var q store.RevisionQuery
	errs := validation.Errors{}
	q.Page, q.PageSize = readPaging(values, errs)
	if q.Status = values.Get("status"); q.Status != "" && !slices.Contains(enrichment.Statuses, q.Status) {
		errs["status"] = validation.NewError("validation_in_invalid",
			"must be one of "+strings.Join(enrichment.Statuses, ", "))
	}
	q.SKU = values.Get("sku")
	var err error
	if q.Since, err = queryTime(values, "since"); err != nil {
		errs["since"] = err
	}
	if len(errs) > 0 {
		return q, e.BadRequestError(firstMessage(errs), errs)
	}
	return q, nil
}
