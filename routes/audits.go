package routes

import (
	"errors"
	"net/http"
	"slices"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/hooks"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

var auditRoutes = []route{
	{Method: http.MethodGet, Path: "/review/audits", Reviewer: true, Handler: reviewAudits},
	{Method: http.MethodPost, Path: "/review/audits/{id}", Reviewer: true, Handler: reviewCloseAudit},
}

// reviewAudits answers a page of the audit queue: the revisions trust
// policies accepted and drew for audit, still waiting for a reviewer.
func reviewAudits(e *core.RequestEvent) error {
	orgs, err := reviewedOrgs(e)
	if err != nil {
		return err
	}
	errs := validation.Errors{}
	page, size := readPaging(e.Request.URL.Query(), errs)
	if len(errs) > 0 {
		return e.BadRequestError(firstMessage(errs), errs)
	}
	out, err := store.New(e.App).Trust().Audits(orgs, page, size)
	if err != nil {
		return internalError(e, "list the audit queue", err)
	}
	return e.JSON(http.StatusOK, out)
}

// closeAuditRequest closes an audit.
type closeAuditRequest struct {
	Audit string `json:"audit"`
}

func (r closeAuditRequest) validate() error {
	return validation.Errors{"audit": validation.Validate(r.Audit, validation.Required,
		validation.In(enrichment.AuditConfirmed, enrichment.AuditReverted).Error("must be confirmed or reverted"))}.Filter()
}

// reviewCloseAudit closes a revision's pending audit with confirmed or
// reverted, as a records API update of its audit does (hooks/audits.go),
// and answers the revision's audit as stored.
func reviewCloseAudit(e *core.RequestEvent) error {
	orgs, err := reviewedOrgs(e)
	if err != nil {
		return err
	}
	id := e.Request.PathValue("id")
	if !isID(id) {
		return e.NotFoundError("No such revision.", nil)
	}
	var req closeAuditRequest
	if err := readJSON(e, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		errs := err.(validation.Errors)
		return e.BadRequestError(firstMessage(errs), errs)
	}
	rev, err := e.App.FindRecordById(schema.Revisions, id)
	if err != nil || !slices.Contains(orgs, enrichment.Org(rev.GetString("organization"))) {
		return e.NotFoundError("No such revision.", nil)
	}
	rev.Set("audit", req.Audit)
	hooks.MarkDecider(rev, e.Auth)
	if err := e.App.Save(rev); err != nil {
		var apiErr *router.ApiError
		if errors.As(err, &apiErr) {
			return apiErr
		}
		return internalError(e, "close an audit", err)
	}
	return e.JSON(http.StatusOK, map[string]any{"id": storedIDOf(rev.Id), "audit": rev.GetString("audit"),
		"auditedAt": rev.GetDateTime("auditedAt").Time().UTC().Format("2006-01-02T15:04:05.000Z"), "auditedBy": rev.GetString("auditedBy")})
}

// storedIDOf is a record id of ours as the API shows it, a number.
func storedIDOf(id string) int64 {
	n, _ := enrichment.ParseID(id)
	return n
}
