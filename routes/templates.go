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
	templates, err := store.New(e.App).Templates(requestOrg(e))
	if err != nil {
		return internalError(e, "list attribute templates", err)
	}
	return e.JSON(http.StatusOK, templates)
}
