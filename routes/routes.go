// Package routes serves the enrichment API under /api/enrichment. Each
// resource's file opens with its route table; Register binds the vendors'
// routes behind the API-key middleware (with the scope each one needs), the
// MCP endpoint for agents behind the same middleware (mcp.go: its tools call
// the vendors' routes), the reviewers' routes behind PocketBase's token auth
// (reviewers and superusers), the OpenAPI document without authentication,
// and answers unknown paths and wrong methods.
package routes

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/catalog-enrichment/enrichment/agents"
	"github.com/catalog-enrichment/enrichment/bodybudget"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Prefix is the path under which every enrichment route lives.
const Prefix = "/api/enrichment"

// defaultBodyLimit bounds request bodies of routes that set no limit of
// their own; larger bodies get 413 before they are read.
const defaultBodyLimit = 64 << 10

// route is one row of a resource's route table.
type route struct {
	Method    string
	Path      string // below Prefix
	Scope     string // required scope of the API key; "" for a reviewers' route
	Reviewer  bool   // for signed-in reviewers and superusers, not API keys
	Handler   func(*core.RequestEvent) error
	BodyLimit int64 // 0: defaultBodyLimit
}

// bodyLimit is the route's bound on request bodies.
func (r route) bodyLimit() int64 {
	if r.BodyLimit == 0 {
		return defaultBodyLimit
	}
	return r.BodyLimit
}

// table lists every route of the API; each resource file contributes its own.
func table() []route {
	return slices.Concat(templateRoutes, productRoutes, gapRoutes, submissionRoutes, metricsRoutes, revisionRoutes,
		changeRoutes, webhookRoutes, overviewRoutes, queueRoutes, reviewGroupRoutes, rollbackRoutes, auditRoutes,
		claimRoutes, decidedRoutes)
}

// Register serves the enrichment API on app.
func Register(app core.App) {
	limiter := newLimiter(app)
	bodies := bodybudget.New(bodyBudget)
	idle := bodyIdle
	app.OnServe().Bind(&hook.Handler[*core.ServeEvent]{
		Id: "enrichmentRoutes",
		Func: func(se *core.ServeEvent) error {
			routes := table()
			mcp, err := agents.NewHandler(mcpCaller(se.App, routes, limiter), openapiJSON)
			if err != nil {
				return fmt.Errorf("the MCP endpoint: %w", err)
			}
			se.Router.Bind(closeUnread(), compressAnswers(), meterBodies(bodies, idle), serverBodies(bodies), redactKeyInURL(),
				policyOrganizationNamed(), reviewerEmailChangeRefused())
			g := se.Router.Group(Prefix)
			g.Bind(requireAPIKey(limiter), readOnce())
			mcpRows := mcpRoutes(mcp)
			for _, r := range mcpRows {
				// note: no scope (each tool asks for its route's) and no
				// content type (the SDK answers for its own)
				g.Route(r.Method, r.Path, r.Handler).Bind(apis.BodyLimit(r.bodyLimit()), apiBodies(bodies, r.bodyLimit()))
			}
			answerable := slices.Concat(routes, mcpRows)
			for _, r := range routes {
				limit := r.bodyLimit()
				handler := r.Handler
				if r.Method == http.MethodGet {
					handler = definesNoBody(handler)
				}
				if r.Reviewer {
					// note: outside the key's group; PocketBase's token auth
					se.Router.Route(r.Method, Prefix+r.Path, handler).
						Bind(apis.RequireAuth(schema.Reviewers, core.CollectionNameSuperusers), jsonBody(), apis.BodyLimit(limit))
					continue
				}
				g.Route(r.Method, r.Path, handler).
					Bind(requireScope(r.Scope), jsonBody(), apis.BodyLimit(limit), apiBodies(bodies, limit))
			}
			// note: no key needed to learn that a path or method does not exist;
			// one pattern per method, as an any-method pattern would conflict
			// with the pages' GET /{path...} (and GET also covers HEAD)
			for _, method := range []string{http.MethodGet, http.MethodPost,
				http.MethodPut, http.MethodPatch, http.MethodDelete} {
				se.Router.Route(method, Prefix+"/{path...}", func(e *core.RequestEvent) error {
					return unroutable(e, answerable)
				})
				// note: the prefix itself too, which the pattern above would
				// otherwise redirect to Prefix+"/" (307)
				se.Router.Route(method, Prefix, func(e *core.RequestEvent) error {
					return e.NotFoundError("No such endpoint.", nil)
				})
				se.Router.Route(method, Prefix+"/openapi.json", openapiDocument) // no key; 405 unless GET
			}
			return se.Next()
		},
	})
}

// unroutable answers a request that no route took: 405 with Allow when the
// path exists under another method, 404 otherwise.
func unroutable(e *core.RequestEvent, routes []route) error {
	// note: the escaped path, so products%2Fskus is not taken for products/skus
	path := strings.TrimPrefix(e.Request.URL.EscapedPath(), Prefix)
	var allow []string
	for _, r := range routes {
		if pathMatches(r.Path, path) {
			allow = append(allow, r.Method)
		}
	}
	if len(allow) == 0 {
		return e.NotFoundError("No such endpoint.", nil)
	}
	e.Response.Header().Set("Allow", strings.Join(allow, ", "))
	return e.Error(http.StatusMethodNotAllowed, "Method not allowed; use "+strings.Join(allow, " or ")+".", nil)
}

// pathMatches reports whether an escaped request path matches a route's
// pattern, whose {name} segments match any one non-empty segment.
func pathMatches(pattern, path string) bool {
	want, got := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(want) != len(got) {
		return false
	}
	for i, w := range want {
		if got[i] != w && !(strings.HasPrefix(w, "{") && strings.HasSuffix(w, "}") && got[i] != "") {
			return false
		}
	}
	return true
}
