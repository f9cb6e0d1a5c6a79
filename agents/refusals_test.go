package agents_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/agents"
	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pocketbase/pocketbase/core"
)

// initialize is an MCP client's first message.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one raw MCP message with the given headers.
func post(t testing.TB, endpoint, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	return res
}

// rawSession opens a session with raw messages, as the load harness does,
// and returns its id.
func rawSession(t testing.TB, endpoint, key string) string {
	t.Helper()
	auth := map[string]string{"Authorization": "Bearer " + key}
	id := post(t, endpoint, initialize, auth).Header.Get("Mcp-Session-Id")
	auth["Mcp-Session-Id"], auth["Mcp-Protocol-Version"] = id, "2025-11-25"
	if res := post(t, endpoint, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, auth); id == "" || res.StatusCode != http.StatusAccepted {
		t.Fatalf("open a session: %q, %d", id, res.StatusCode)
	}
	return id
}

// TestAgentAuthentication: without a valid key the endpoint answers 401
// before any session starts; the key goes as Authorization: Bearer or as
// the REST routes' header; a session answers only the client that opened it.
func TestAgentAuthentication(t *testing.T) {
	f := fixture.Get(t)
	s := serve(t, f)
	for _, c := range []struct {
		name    string
		headers map[string]string
	}{
		{"no key", nil},
		{"unknown key", map[string]string{"Authorization": "Bearer ce_nope"}},
		{"revoked key", map[string]string{"Authorization": "Bearer " + f.A.Keys["revoked"]}},
		{"basic, not bearer", map[string]string{"Authorization": "Basic " + f.A.Keys["both"]}},
	} {
		res := post(t, s.endpoint, initialize, c.headers)
		if res.StatusCode != http.StatusUnauthorized || res.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("%s: %d, session %q; want 401 and no session", c.name, res.StatusCode, res.Header.Get("Mcp-Session-Id"))
		}
	}

	viaHeader := connect(t, s.endpoint, routes.KeyHeader, f.A.Keys["read"])
	if _, err := viaHeader.CallTool(context.Background(), &mcp.CallToolParams{Name: agents.ToolGetTemplates}); err != nil {
		t.Errorf("a session keyed by %s: %v", routes.KeyHeader, err)
	}

	// another client's key on A's session: the SDK's owner check refuses it
	session := connect(t, s.endpoint, "Authorization", f.A.Keys["both"])
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_feedback","arguments":{}}}`
	for key, want := range map[string]int{f.B.Keys["both"]: http.StatusForbidden, f.A.Keys["read"]: http.StatusForbidden} {
		res := post(t, s.endpoint, call, map[string]string{"Authorization": "Bearer " + key,
			"Mcp-Session-Id": session.ID(), "Mcp-Protocol-Version": session.InitializeResult().ProtocolVersion})
		if res.StatusCode != want {
			t.Errorf("A's session with another client's key: %d, want %d", res.StatusCode, want)
		}
	}
}

// TestAgentRefusals: a tool refused for scope, limits or bad input is a tool
// error carrying the REST route's message.
func TestAgentRefusals(t *testing.T) {
	f := fixture.Get(t)
	s := serve(t, f)
	read := connect(t, s.endpoint, "Authorization", f.A.Keys["read"])
	submit := connect(t, s.endpoint, "Authorization", f.A.Keys["submit"])
	both := connect(t, s.endpoint, "Authorization", f.A.Keys["both"])
	items := func(n int, description string) map[string]any {
		list := make([]any, n)
		for i := range list {
			list[i] = map[string]any{"sku": fmt.Sprintf("BULK-%04d", i+1), "description": description}
		}
		return map[string]any{"items": list}
	}
	skus := make([]string, 51)
	for i := range skus {
		skus[i] = fmt.Sprintf("S%d", i)
	}
	for _, c := range []struct {
		name    string
		session *mcp.ClientSession
		tool    string
		args    any
		want    string
	}{
		{"propose without catalog:submit", read, agents.ToolPropose, items(1, "x"), "Missing required scope: catalog:submit"},
		{"gaps without catalog:read", submit, agents.ToolListGaps, nil, "Missing required scope: catalog:read"},
		{"feedback without catalog:read", submit, agents.ToolGetFeedback, nil, "Missing required scope: catalog:read"},
		{"a slot that is none", both, agents.ToolListGaps, map[string]any{"slot": "price"}, "Invalid slot: must be description, images or attributes.NAME"},
		{"an unknown template", both, agents.ToolListGaps, map[string]any{"template": "Drills"}, "Invalid template: no template has this id or name"},
		{"an unknown argument", both, agents.ToolListGaps, map[string]any{"sort": "id"}, "Unknown argument sort: this tool takes page, pageSize, template, brand, category, slot."},
		{"an object for a parameter", both, agents.ToolListGaps, map[string]any{"page": map[string]any{}}, "Invalid page: must be a string or a number."},
		{"a page that is not whole", both, agents.ToolListGaps, map[string]any{"page": 1.5}, "Invalid page"},
		{"51 SKUs", both, agents.ToolFindProducts, map[string]any{"skus": skus}, "More than 50 items requested."},
		{"no SKUs", both, agents.ToolFindProducts, map[string]any{"skus": []string{}}, "A list of product numbers is required."},
		{"SKUs and a query", both, agents.ToolFindProducts, map[string]any{"skus": []string{"SKU-1"}, "query": "x"}, "Give skus alone, without query, modifiedSince, page or pageSize"},
		{"SKUs and a page", both, agents.ToolFindProducts, map[string]any{"skus": []string{"SKU-1"}, "page": 1}, "Give skus alone, without query, modifiedSince, page or pageSize"},
		{"SKUs and an unknown argument", both, agents.ToolFindProducts, map[string]any{"skus": []string{"SKU-1"}, "sort": "id"},
			"Unknown argument sort: this tool takes skus, query, modifiedSince, page, pageSize."},
		{"an unknown argument of find_products", both, agents.ToolFindProducts, map[string]any{"sort": "id"},
			"Unknown argument sort: this tool takes skus, query, modifiedSince, page, pageSize."},
		{"a long query", both, agents.ToolFindProducts, map[string]any{"query": strings.Repeat("x", 201)}, "Invalid query: must be at most 200 characters"},
		{"no items", both, agents.ToolPropose, map[string]any{"items": []any{}}, "Submission must contain at least one item."},
		{"1001 items", both, agents.ToolPropose, items(1001, "x"), "Submission exceeds the maximum of 1000 items."},
		{"an unknown member", both, agents.ToolPropose, with(items(1, "x"), "priority", 1), "priority"},
		{"a confidence out of range", both, agents.ToolPropose, map[string]any{"items": []any{map[string]any{"sku": "SKU-1", "confidence": 101, "name": "x"}}}, "items.0.confidence"},
		{"dryRun not a boolean", both, agents.ToolPropose, with(items(1, "x"), "dryRun", "yes"), "Invalid dryRun: must be true or false."},
		{"over the route's 16 MiB", both, agents.ToolPropose, items(170, strings.Repeat("d", 100_000)), "Request entity too large"},
		{"a status that is none", both, agents.ToolGetFeedback, map[string]any{"status": "won"}, "Invalid status: must be one of pending"},
		{"a time that is none", both, agents.ToolGetFeedback, map[string]any{"since": "yesterday"}, "Invalid since"},
		{"templates take no arguments", both, agents.ToolGetTemplates, map[string]any{"page": 1}, "Unknown argument page: this tool takes none."},
	} {
		if got := refused(t, c.session, c.tool, c.args); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q in it", c.name, got, c.want)
		}
	}
	if n := countRevisions(t, s); n != 0 {
		t.Errorf("refused proposals stored %d revisions", n)
	}
}

// countRevisions counts every revision stored.
func countRevisions(t *testing.T, s server) int {
	t.Helper()
	var n int
	if err := s.app.DB().NewQuery("SELECT COUNT(*) FROM revisions").Row(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// newClient adds an API client to org and returns its key.
func newClient(t testing.TB, app core.App, org enrichment.Org, c store.NewClient) string {
	t.Helper()
	key := apikey.New("")
	c.Name, c.KeyHash, c.KeyPrefix = "agent", key.Hash, key.Shown
	if c.Scopes == nil {
		c.Scopes = enrichment.Scopes
	}
	if _, err := store.New(app).Accounts().CreateClient(org, c); err != nil {
		t.Fatal(err)
	}
	return key.Raw
}

// TestAgentTenancy: no tool reaches another organization's products or
// revisions, another client's revisions, or a product outside the client's
// catalog.
func TestAgentTenancy(t *testing.T) {
	f := fixture.Get(t)
	s := serve(t, f)
	a := connect(t, s.endpoint, "Authorization", f.A.Keys["both"])
	schemas := outputSchemas(t, a)
	proposed := call[struct{ Results []result }](t, a, schemas, agents.ToolPropose,
		map[string]any{"items": []any{map[string]any{"sku": "SKU-M", "name": "Trail Two"}}}).Results
	if proposed[0].RevisionID == nil {
		t.Fatalf("A's proposal: %+v", proposed)
	}

	b := connect(t, s.endpoint, "Authorization", f.B.Keys["both"])
	if got := call[struct{ Templates []template }](t, b, schemas, agents.ToolGetTemplates, nil).Templates; len(got) != 1 || got[0].Name != "Drills" {
		t.Errorf("B's templates: %+v", got)
	}
	if got := call[page[product]](t, b, schemas, agents.ToolFindProducts, map[string]any{"skus": []string{"SKU-1", "SKU-M"}}); len(got.Items) != 1 || got.Items[0].Name != "Beta drill" {
		t.Errorf("B looking up SKU-1 and A's SKU-M: %+v", got)
	}
	if got := call[page[product]](t, b, schemas, agents.ToolFindProducts, map[string]any{"query": "trail"}); got.TotalElements != 0 {
		t.Errorf("B's text search found A's products: %+v", got)
	}
	if got := refused(t, b, agents.ToolListGaps, map[string]any{"template": "Shoes"}); !strings.Contains(got, "no template has this id or name") {
		t.Errorf("B naming A's template: %q", got)
	}
	if got := call[page[revision]](t, b, schemas, agents.ToolGetFeedback, nil); got.TotalElements != 0 {
		t.Errorf("B sees A's revisions: %+v", got)
	}
	if got := call[struct{ Results []result }](t, b, schemas, agents.ToolPropose,
		map[string]any{"items": []any{map[string]any{"sku": "SKU-M", "name": "Mine"}}}).Results; got[0].Status != "UNMATCHED" {
		t.Errorf("B proposing for A's SKU-M: %+v", got)
	}

	other := connect(t, s.endpoint, "Authorization", newClient(t, s.app, f.A.Org, store.NewClient{}))
	if got := call[page[revision]](t, other, schemas, agents.ToolGetFeedback, nil); got.TotalElements != 0 {
		t.Errorf("another client of A sees the first one's revisions: %+v", got)
	}

	shoes := connect(t, s.endpoint, "Authorization", newClient(t, s.app, f.A.Org, store.NewClient{Catalog: enrichment.Selection{Templates: []string{"Shoes"}}}))
	if got := call[page[product]](t, shoes, schemas, agents.ToolFindProducts, map[string]any{"skus": []string{"SKU-1", "SKU-NEW"}}); len(got.Items) != 1 || got.Items[0].SKU != "SKU-1" {
		t.Errorf("a client of Shoes looking up SKU-NEW: %+v", got)
	}
	if got := call[page[product]](t, shoes, schemas, agents.ToolFindProducts, map[string]any{"query": "new"}); got.TotalElements != 0 {
		t.Errorf("a client of Shoes searching for SKU-NEW: %+v", got)
	}
	for _, g := range call[page[gap]](t, shoes, schemas, agents.ToolListGaps, map[string]any{"pageSize": 500}).Items {
		if !strings.HasPrefix(g.SKU, "SKU-") || g.SKU == "SKU-NEW" || g.SKU == "SKU-DUP" {
			t.Errorf("a client of Shoes sees the gaps of %s", g.SKU)
		}
	}
	if got := call[struct{ Results []result }](t, shoes, schemas, agents.ToolPropose,
		map[string]any{"items": []any{map[string]any{"sku": "SKU-NEW", "name": "x"}}}).Results; got[0].Status != "UNMATCHED" {
		t.Errorf("a client of Shoes proposing for SKU-NEW: %+v", got)
	}
}

// TestAgentRateLimit: each tool call takes a token from the key's bucket,
// the same bucket as its REST requests, and a call over the limit is a
// tool error with the route's message. A request outside a session (the
// SDK's discovery, an initialize) takes one and is refused with 429 as a
// REST request; a session's own messages take none, so a key of 1 request
// a second (2 at once) connects with the official SDK.
func TestAgentRateLimit(t *testing.T) {
	f := fixture.Get(t)
	s := serve(t, f)
	var now atomic.Int64 // note: the clock stands still, so no token comes back unless the test says so
	now.Store(clock.Now(s.app).UnixNano())
	clock.Set(s.app, func() time.Time { return time.Unix(0, now.Load()) })
	key := newClient(t, s.app, f.A.Org, store.NewClient{RateLimit: 1})
	session := connect(t, s.endpoint, "Authorization", key)
	schemas := outputSchemas(t, session)
	msg := refused(t, session, agents.ToolGetTemplates, map[string]any{})
	if !strings.HasPrefix(msg, "Rate limit exceeded: this key may make 2 requests at once and 1 per second; retry after 1 s.") {
		t.Errorf("a tool call over the key's limit: %q, want the route's 429 message", msg)
	}
	if code := fixture.Send(s.h, http.MethodGet, routes.Prefix+"/attribute-templates", routes.KeyHeader, key, "").Code; code != http.StatusTooManyRequests {
		t.Errorf("REST with the bucket empty: %d, want 429", code)
	}
	res := post(t, s.endpoint, initialize, map[string]string{"Authorization": "Bearer " + key})
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Errorf("a new session with the bucket empty: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	now.Add(int64(time.Second))
	call[any](t, session, schemas, agents.ToolGetTemplates, map[string]any{})
	if err := session.Close(); err != nil {
		t.Errorf("the session's end with the bucket empty: %v", err)
	}
}

// Arguments as JSON Schema reads them: a whole number written with a
// fraction or an exponent is the integer the schemas ask for, and a null
// argument is one not given, beside skus too.
func TestAgentArgumentsReadAsTheSchemasSay(t *testing.T) {
	f := fixture.Get(t)
	s := serve(t, f)
	session := connect(t, s.endpoint, "Authorization", f.A.Keys["both"])
	schemas := outputSchemas(t, session)
	for _, size := range []string{"2.0", "2e0", "0.2e1"} {
		gaps := call[page[gap]](t, session, schemas, agents.ToolListGaps, map[string]any{"pageSize": json.RawMessage(size), "page": json.RawMessage("0.0")})
		if len(gaps.Items) != 2 || gaps.TotalElements < 3 {
			t.Errorf("pageSize %s: %d items of %d", size, len(gaps.Items), gaps.TotalElements)
		}
	}
	if got := refused(t, session, agents.ToolListGaps, map[string]any{"pageSize": json.RawMessage("2.5")}); !strings.Contains(got, "Invalid pageSize") {
		t.Errorf("pageSize 2.5: %q", got)
	}
	found := call[page[product]](t, session, schemas, agents.ToolFindProducts, map[string]any{"skus": []string{"SKU-1"}, "page": nil, "query": nil})
	if len(found.Items) != 1 || found.Items[0].SKU != "SKU-1" {
		t.Errorf("skus with null arguments beside: %+v", found.Items)
	}
	// a name spelled with an escape is the same name
	escaped := json.RawMessage(`{"items": [{"sku": "SKU-1", "name": "Escaped"}], "dry\u0052un": true}`)
	dry := call[struct{ Results []result }](t, session, schemas, agents.ToolPropose, escaped).Results
	if len(dry) != 1 || dry[0].Status != "CREATED" || dry[0].RevisionID != nil || countRevisions(t, s) != 0 {
		t.Errorf("a dry run named with an escape: %+v, %d revisions stored", dry, countRevisions(t, s))
	}
}
