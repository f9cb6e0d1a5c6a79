// Package agents serves the enrichment API to AI agents as a Model Context
// Protocol server (Streamable HTTP, on the official Go SDK). Each tool is a
// REST route called in process: the route decides scopes, limits, the
// client's catalog and tenancy as it does for a REST call, its answer is the
// tool's result, and its refusal is a tool error carrying its message. The
// tools' schemas are inferred from the Go types of the routes' bodies and
// answers and described in the OpenAPI document's words (schemas.go).
package agents

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call is a REST route's request that a tool makes.
type Call struct {
	Method string // GET or POST
	Path   string // below /api/enrichment
	Query  url.Values
	Body   []byte // JSON; nil for a GET
}

// Answer is the route's answer to a call: its status and its JSON body (the
// result, or the error's {status, message, data}).
type Answer struct {
	Status int
	Body   []byte
}

// Caller answers a call as the REST route answers it for client.
type Caller func(ctx context.Context, client enrichment.Client, c Call) Answer

// SessionTimeout closes a session that has made no request for this long;
// an agent that comes back later gets 404 and connects again (the official
// SDKs report "session not found" and leave the new connection to it).
const SessionTimeout = 30 * time.Minute

// Handler is the MCP endpoint.
type Handler struct {
	serve http.Handler
}

// NewHandler is the endpoint whose tools call the routes through call, with
// schemas described by the OpenAPI document openapi.
func NewHandler(call Caller, openapi []byte) (*Handler, error) {
	tools, _, err := toolSchemas(openapi)
	if err != nil {
		return nil, err
	}
	version := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok {
		version = info.Main.Version
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "catalog-enrichment", Title: "Catalog Enrichment", Version: version},
		&mcp.ServerOptions{Instructions: instructions})
	for _, t := range tools {
		server.AddTool(t.spec, t.handler(call))
	}
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{
			SessionTimeout: SessionTimeout,
			// note: the route bounds the body already, to the largest tool
			// call (routes/mcp.go); the SDK's own 4 MiB would refuse a propose
			// that the submissions route takes
			MaxRequestBodyBytes: -1,
			// note: the SDK refuses a loopback connection whose Host is not
			// loopback, against DNS rebinding of ambient credentials; here every
			// request carries its key, and a reverse proxy on the same machine
			// (the usual self-hosted setup) sends the public Host
			DisableLocalhostProtection: true,
		})
	// note: the SDK binds a session to its owner only through TokenInfo,
	// which only its bearer-token middleware sets; ServeClient hands it the
	// client the routes authenticated, and a session is bound to that client
	verify := func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		c, ok := ctx.Value(clientContextKey{}).(enrichment.Client)
		if !ok {
			return nil, fmt.Errorf("%w: no authenticated client", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{UserID: strconv.FormatInt(c.ID, 10), Scopes: c.Scopes, Extra: map[string]any{clientExtra: c}}, nil
	}
	bound := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
	return &Handler{serve: bound}, nil
}

type clientContextKey struct{}

// clientExtra is the TokenInfo.Extra member that holds the client.
const clientExtra = "enrichmentClient"

// ServeClient answers an MCP request of client, whose key the caller has
// already authenticated.
func (h *Handler) ServeClient(w http.ResponseWriter, r *http.Request, client enrichment.Client) {
	r = r.Clone(context.WithValue(r.Context(), clientContextKey{}, client))
	r.Header.Set("Authorization", "Bearer "+strconv.FormatInt(client.ID, 10)) // a stand-in: verify reads the client from the context
	h.serve.ServeHTTP(w, r)
}

// instructions tell an agent, at initialization, how the tools fit together.
const instructions = `Catalog Enrichment: propose better product data to a merchant, whose reviewers (or trust policies) accept or reject each proposal.
The loop: get_templates (the attributes each kind of product has), list_gaps (the products missing something, most important first), find_products (a product's current data, by SKU or text), propose (dryRun first to see what would be stored and what the checks find), then get_feedback later (which proposals were accepted, field by field, with the reviewers' reasons and comments).
Only products of the catalog this key sees exist for these tools. A proposal is a pending revision until decided; proposing again for the same product replaces your pending one.`
