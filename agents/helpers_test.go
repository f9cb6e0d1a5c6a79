package agents_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pocketbase/pocketbase/tests"
)

// server is the service on a real listener, over a fresh copy of the
// fixture; endpoint is its MCP URL.
type server struct {
	app      *tests.TestApp
	h        http.Handler
	endpoint string
}

func serve(t *testing.T, f *fixture.Fixture) server {
	t.Helper()
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	srv := httptest.NewServer(fixture.Serve(t, app))
	t.Cleanup(srv.Close)
	return server{app: app, h: srv.Config.Handler, endpoint: srv.URL + routes.Prefix + routes.MCPPath}
}

// withHeader sends one more header on every request, as an MCP client
// configured with a key does.
type withHeader struct{ name, value string }

func (w withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(w.name, w.value)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens a session with the SDK's own client, the key sent as
// header (routes.KeyHeader or Authorization, as "Bearer KEY").
func connect(t *testing.T, endpoint, header, key string) *mcp.ClientSession {
	t.Helper()
	if header == "Authorization" {
		key = "Bearer " + key
	}
	transport := &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: withHeader{header, key}}}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1.0.0"}, nil)
	session, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

// outputSchemas are the session's tools' output schemas, by tool name.
func outputSchemas(t *testing.T, session *mcp.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s's output schema: %v", tool.Name, err)
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s's output schema: %v", tool.Name, err)
		}
		out[tool.Name] = resolved
	}
	return out
}

// call calls a tool that must succeed, checks its structured result
// against the tool's output schema and decodes it into T.
func call[T any](t *testing.T, session *mcp.ClientSession, schemas map[string]*jsonschema.Resolved, name string, args any) T {
	t.Helper()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s refused: %s", name, text(res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	if s := schemas[name]; s == nil {
		t.Fatalf("%s has no output schema", name)
	} else if err := s.Validate(generic); err != nil {
		t.Errorf("%s's result breaks its output schema: %v\n%s", name, err, raw)
	}
	var out T
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: decode %s: %v", name, raw, err)
	}
	return out
}

// refused calls a tool that must be refused and returns its message.
func refused(t *testing.T, session *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		raw, _ := json.Marshal(res.StructuredContent)
		t.Fatalf("%s with %v was not refused: %s", name, args, raw)
	}
	return text(res)
}

// text is a result's text content, its parts on lines of their own.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}
