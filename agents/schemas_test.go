package agents

import (
	"os"
	"testing"
)

// TestSchemasAgreeWithOpenAPI: every property of every tool's input and
// output, as inferred from the Go types, is described by the OpenAPI
// document, and the document has none that the types lack.
func TestSchemasAgreeWithOpenAPI(t *testing.T) {
	doc, err := os.ReadFile("../routes/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	built, mismatches, err := toolSchemas(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mismatches {
		t.Error(m)
	}
	if len(built) != len(tools) {
		t.Fatalf("%d tools built of %d", len(built), len(tools))
	}
}
