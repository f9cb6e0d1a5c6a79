package agents

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestSchemasAgreeWithOpenAPI: every property of every tool's input and
// output, as inferred from the Go types, is described by the OpenAPI
// document, and the document has none that the types lack.
func TestSchemasAgreeWithOpenAPI(t *testing.T) {
	built, mismatches := builtTools(t)
	for _, m := range mismatches {
		t.Error(m)
	}
	if len(built) != len(tools) {
		t.Fatalf("%d tools built of %d", len(built), len(tools))
	}
}

// TestInputSchemasTakeWhatToolsTake: a client that checks its arguments
// against a tool's input schema sends what the tool takes: a submission
// item's unknown member (the route lists it in ignoredFields) passes, and
// dryRun is a boolean only, as the tool reads it.
func TestInputSchemasTakeWhatToolsTake(t *testing.T) {
	built, _ := builtTools(t)
	i := slices.IndexFunc(built, func(b builtTool) bool { return b.name == ToolPropose })
	raw, err := json.Marshal(built[i].spec.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args string
		ok   bool
	}{
		{`{"dryRun":true,"items":[{"sku":"SKU-1","name":"Trail","gtin":"0123"}]}`, true},
		{`{"dryRun":false,"items":[{"sku":"SKU-1","name":"Trail"}]}`, true},
		{`{"dryRun":"true","items":[{"sku":"SKU-1","name":"Trail"}]}`, false},
		{`{"dryRun":1,"items":[{"sku":"SKU-1","name":"Trail"}]}`, false},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.args), &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); (err == nil) != c.ok {
			t.Errorf("propose's input schema on %s: %v, want valid %v", c.args, err, c.ok)
		}
	}
}

// builtTools are the tools as the server builds them from the repository's
// OpenAPI document, with the mismatches found.
func builtTools(t *testing.T) ([]builtTool, []string) {
	t.Helper()
	doc, err := os.ReadFile("../routes/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	built, mismatches, err := toolSchemas(doc)
	if err != nil {
		t.Fatal(err)
	}
	return built, mismatches
}
