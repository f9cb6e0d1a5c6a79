package routes

import (
	"encoding/json/v2"
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// openapiOperation is what this test reads of an OpenAPI operation.
type openapiOperation struct {
	OperationID string                 `json:"operationId"`
	Scope       string                 `json:"x-scope"`
	Security    *[]map[string][]string `json:"security"`
	Responses   map[string]any         `json:"responses"`
	RequestBody map[string]any         `json:"requestBody"`
}

// TestOpenAPIMatchesRouteTable checks that the embedded document describes
// exactly the served routes: every route of table() with its method, scope
// and handler, plus the document itself, and nothing else.
func TestOpenAPIMatchesRouteTable(t *testing.T) {
	var doc struct {
		OpenAPI string                                 `json:"openapi"`
		Paths   map[string]map[string]openapiOperation `json:"paths"`
	}
	if err := json.Unmarshal(openapiJSON, &doc); err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}

	documented := map[string]openapiOperation{}
	for path, item := range doc.Paths {
		for method, op := range item {
			documented[strings.ToUpper(method)+" "+path] = op
		}
	}
	served := map[string]route{}
	for _, r := range table() {
		served[r.Method+" "+Prefix+r.Path] = r
	}
	served[http.MethodGet+" "+Prefix+"/openapi.json"] = route{Method: http.MethodGet, Path: "/openapi.json", Handler: openapiDocument}

	for key, r := range served {
		op, ok := documented[key]
		if !ok {
			t.Errorf("%s is served but not documented", key)
			continue
		}
		if want := openapiHandlerName(r.Handler); op.OperationID != want {
			t.Errorf("%s: operationId %q, want the handler's name %q", key, op.OperationID, want)
		}
		if op.Scope != r.Scope {
			t.Errorf("%s: x-scope %q, want %q", key, op.Scope, r.Scope)
		}
		switch {
		case op.Security == nil:
			t.Errorf("%s: no security requirement", key)
		case r.Reviewer:
			if !slices.EqualFunc(*op.Security, []map[string][]string{{"reviewerToken": {}}}, func(a, b map[string][]string) bool {
				return reflect.DeepEqual(a, b)
			}) {
				t.Errorf("%s: security %v, want reviewerToken", key, *op.Security)
			}
		case r.Scope == "" && len(*op.Security) != 0:
			t.Errorf("%s: needs no key but documents security %v", key, *op.Security)
		case r.Scope != "" && !slices.EqualFunc(*op.Security, []map[string][]string{{"apiKey": {r.Scope}}}, func(a, b map[string][]string) bool {
			return reflect.DeepEqual(a, b)
		}):
			t.Errorf("%s: security %v, want apiKey with scope %s", key, *op.Security, r.Scope)
		}
		if !slices.ContainsFunc([]string{"200", "201", "202", "204"}, func(code string) bool { _, ok := op.Responses[code]; return ok }) {
			t.Errorf("%s: no success response documented", key)
		}
		wantCodes := []string{"404", "405"}
		if r.Scope != "" {
			wantCodes = append(wantCodes, "401", "403", "429")
		}
		if r.Reviewer {
			wantCodes = append(wantCodes, "401", "403")
		}
		if r.Method == http.MethodPost {
			wantCodes = append(wantCodes, "400", "413")
			if op.RequestBody == nil {
				t.Errorf("%s: takes a body but documents none", key)
			}
		}
		for _, code := range wantCodes {
			if _, ok := op.Responses[code]; !ok {
				t.Errorf("%s: response %s not documented", key, code)
			}
		}
	}
	for key := range documented {
		if _, ok := served[key]; !ok {
			t.Errorf("%s is documented but not served", key)
		}
	}
}

// openapiHandlerName is a handler function's bare name, e.g. productsExport.
func openapiHandlerName(h any) string {
	name := runtime.FuncForPC(reflect.ValueOf(h).Pointer()).Name()
	return name[strings.LastIndex(name, ".")+1:]
}
