package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer sends the key as Authorization: Bearer, as MCP clients do.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

var checkpointsLine = regexp.MustCompile(`(?m)^enrichment_db_checkpoints_total ([0-9.e+]+)$`)

// TestAgentOnTheBinary: the built binary serves the MCP endpoint. An agent
// on the official Go SDK's client connects with the demo's key as a bearer
// token, finds the five tools, reads a gap and proposes for it, with dryRun
// and then for real; and serve's background checkpointer has checkpointed
// data.db (its count, on the metrics listener, is above 0).
func TestAgentOnTheBinary(t *testing.T) {
	metrics := freeAddr(t)
	t.Setenv("ENRICHMENT_METRICS_ADDR", metrics)
	d := startDemo(t, t.TempDir())
	endpoint := d.base + "/api/enrichment/mcp"
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: bearer(d.key), Timeout: 30 * time.Second}}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", endpoint, err)
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Fatalf("tools: %v, %v", tools, err)
	}
	callTool := func(name string, args map[string]any, into any) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, into); err != nil {
			t.Fatalf("%s: %s: %v", name, raw, err)
		}
	}
	var gaps struct {
		Items []struct {
			SKU  string   `json:"sku"`
			Gaps []string `json:"gaps"`
		} `json:"items"`
	}
	callTool("list_gaps", map[string]any{"slot": "description", "pageSize": 1}, &gaps)
	if len(gaps.Items) != 1 || gaps.Items[0].Gaps[0] != "description" {
		t.Fatalf("the demo's first product without a description: %+v", gaps)
	}
	proposal := map[string]any{"model": map[string]any{"name": "e2e", "version": "1"},
		"items": []any{map[string]any{"sku": gaps.Items[0].SKU, "confidence": 90, "description": "Written by an agent."}}}
	var results struct {
		Results []struct {
			Status     string `json:"status"`
			RevisionID *int64 `json:"revisionId"`
		} `json:"results"`
	}
	callTool("propose", map[string]any{"dryRun": true, "items": proposal["items"], "model": proposal["model"]}, &results)
	if len(results.Results) != 1 || results.Results[0].Status != "CREATED" || results.Results[0].RevisionID != nil {
		t.Fatalf("dry run: %+v", results)
	}
	callTool("propose", proposal, &results)
	if len(results.Results) != 1 || results.Results[0].RevisionID == nil {
		t.Fatalf("propose: %+v", results)
	}

	var count float64
	for deadline := time.Now().Add(10 * time.Second); count == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		res, err := http.Get("http://" + metrics + "/metrics")
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if m := checkpointsLine.FindSubmatch(body); m != nil {
			count, _ = strconv.ParseFloat(string(m[1]), 64)
		}
	}
	if count == 0 {
		t.Errorf("serve's checkpointer counted no checkpoint of data.db (metrics at %s)", metrics)
	}
}
