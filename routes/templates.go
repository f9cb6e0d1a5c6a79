package routes

import (
	"encoding/json/v2"
	"net/http"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

var templateRoutes = []route{
	{Method: http.MethodGet, Path: "/attribute-templates", Scope: enrichment.ScopeRead, Handler: templatesList},
}

// templatesList returns every active attribute template of the organization.
// Templates change rarely and are asked for often, so the encoded answer is
// kept while the organization's generation holds.
func templatesList(e *core.RequestEvent) error {
	org, generation := requestOrg(e), requestGeneration(e)
	caches := cachesOf(e.App)
	if body, at, ok := caches.templates.Get(org); ok && at == generation {
		return e.Blob(http.StatusOK, "application/json", body)
	}
	templates, err := store.New(e.App).Templates(org)
	if err != nil {
		return internalError(e, "list attribute templates", err)
	}
	body, err := json.Marshal(templates)
	if err != nil {
		return internalError(e, "encode attribute templates", err)
	}
	caches.templates.Put(org, generation, body)
	return e.Blob(http.StatusOK, "application/json", body)
}
