package routes

import (
	"net/http"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

var templateRoutes = []route{
	{Method: http.MethodGet, Path: "/attribute-templates", Scope: enrichment.ScopeRead, Handler: templatesList},
}

// templatesList returns every active attribute template of the organization.
func templatesList(e *core.RequestEvent) error {
	tag, err := generationTag(e)
	if err != nil {
		return internalError(e, "tag the attribute templates", err)
	}
	if notModified(e, tag) {
		return nil
	}
	body, err := store.New(e.App).Catalog().TemplatesJSON(requestOrg(e))
	if err != nil {
		return internalError(e, "list attribute templates", err)
	}
	return e.Blob(http.StatusOK, "application/json", body)
}
