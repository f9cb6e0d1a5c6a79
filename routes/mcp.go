package routes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/catalog-enrichment/enrichment/agents"
	"github.com/catalog-enrichment/enrichment/apierror"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/ratelimit"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// MCPPath is the Model Context Protocol endpoint (agents/), below Prefix:
// POST carries the agent's messages, GET opens a session's stream of the
// server's, DELETE ends a session.
const MCPPath = "/mcp"

// mcpBodyLimit bounds an MCP request: the largest tool call (a propose of
// the submissions route's 16 MiB) and its envelope, so that a call over the
// route's limit is the route's refusal, a tool error, rather than an HTTP one.
const mcpBodyLimit = 16<<20 + 1<<20

// mcpRoutes are the endpoint's rows: any valid key may open a session (a
// tool asks for the scope of the route it calls).
func mcpRoutes(h *agents.Handler) []route {
	serve := func(e *core.RequestEvent) error {
		h.ServeClient(e.Response, e.Request, requestClient(e))
		return nil
	}
	var rows []route
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		rows = append(rows, route{Method: method, Path: MCPPath, Handler: serve, BodyLimit: mcpBodyLimit})
	}
	return rows
}

// bearerKey is the key an MCP client sends as Authorization: Bearer KEY,
// which MCP clients are configured with; the REST routes take only KeyHeader.
func bearerKey(e *core.RequestEvent) string {
	if e.Request.URL.Path != Prefix+MCPPath {
		return ""
	}
	scheme, key, ok := strings.Cut(e.Request.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(key)
}

// inMCPSession tells an MCP request within a session (its initialization
// done): the key's rate limit is taken by its tool calls (mcpCaller), one
// token each as the REST request each stands for, so that a refusal is a
// tool error with the route's message; the session's own messages
// (notifications, the stream, the listing of tools, its end) take none. A
// request that starts a session takes one at the door, as a REST request.
func inMCPSession(e *core.RequestEvent) bool {
	return e.Request.URL.Path == Prefix+MCPPath && e.Request.Header.Get("Mcp-Session-Id") != ""
}

// mcpCaller answers an agent's tool call with a REST route's handler, as a
// REST request of the same client is answered: the key's rate limit, the
// route's scope, body limit, validation, client catalog and messages. The
// key and the body's budget were taken by the MCP request itself.
func mcpCaller(app core.App, routes []route, limiter *ratelimit.Limiter) agents.Caller {
	byCall := map[string]route{}
	for _, r := range routes {
		if !r.Reviewer {
			byCall[r.Method+" "+r.Path] = r
		}
	}
	return func(ctx context.Context, client enrichment.Client, c agents.Call) agents.Answer {
		r, ok := byCall[c.Method+" "+c.Path]
		if !ok { // note: the tools name only routes of the table
			return answerOf(router.NewInternalServerError("", fmt.Errorf("no route %s %s", c.Method, c.Path)))
		}
		if client.RateLimit > 0 {
			if d := limiter.Allow(client.ID, client.RateLimit); !d.Allowed {
				return answerOf(rateLimited(app, d))
			}
		}
		if !client.HasScope(r.Scope) {
			return answerOf(apierror.Forbidden(r.Scope))
		}
		if int64(len(c.Body)) > r.bodyLimit() {
			return answerOf(apis.ErrRequestEntityTooLarge)
		}
		target := Prefix + c.Path
		if len(c.Query) > 0 {
			target += "?" + c.Query.Encode()
		}
		req, err := http.NewRequestWithContext(ctx, c.Method, target, bytes.NewReader(c.Body))
		if err != nil {
			return answerOf(router.NewInternalServerError("", err))
		}
		req.Header.Set("Content-Type", "application/json")
		answer := &recorder{header: http.Header{}}
		e := &core.RequestEvent{App: app}
		e.Request, e.Response = req, answer
		e.Set(clientKey, client)
		if err := r.Handler(e); err != nil {
			return answerOf(err)
		}
		return agents.Answer{Status: answer.status, Body: answer.body.Bytes()}
	}
}

// answerOf is the answer a route's error makes: its status and its JSON.
func answerOf(err error) agents.Answer {
	apiErr := router.ToApiError(err)
	body, _ := json.Marshal(apiErr) // note: an ApiError always encodes
	return agents.Answer{Status: apiErr.Status, Body: body}
}

// recorder keeps what a route writes for a tool.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}
