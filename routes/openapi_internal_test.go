package routes

import (
	"encoding/json/v2"
	"fmt"
	"net/http"
	"net/url"
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

// scopeSchemes names the security scheme of each API key scope: an apiKey
// scheme has no scopes of its own (only OAuth2 and OpenID Connect do, and
// linters hold a requirement to that), so each scope is a scheme.
var scopeSchemes = map[string]string{"catalog:read": "catalogRead", "catalog:submit": "catalogSubmit"}

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
		case r.Scope != "" && !slices.EqualFunc(*op.Security, []map[string][]string{{scopeSchemes[r.Scope]: {}}}, func(a, b map[string][]string) bool {
			return reflect.DeepEqual(a, b)
		}):
			t.Errorf("%s: security %v, want the scheme of scope %s (%s) without scopes", key, *op.Security, r.Scope, scopeSchemes[r.Scope])
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

// TestOpenAPILinted holds the document to what OpenAPI linters (Spectral's
// oas rules, Redocly's recommended set) check beyond the schema: an info
// license and contact; security requirements that name a defined scheme and
// list scopes only for OAuth2 and OpenID Connect schemes; and a dryRun
// parameter whose schema takes exactly what the server takes.
func TestOpenAPILinted(t *testing.T) {
	var doc struct {
		Info struct {
			License *struct {
				Name       string `json:"name"`
				URL        string `json:"url"`
				Identifier string `json:"identifier"`
			} `json:"license"`
			Contact *map[string]any `json:"contact"`
		} `json:"info"`
		Security   []map[string][]string                  `json:"security"`
		Paths      map[string]map[string]openapiOperation `json:"paths"`
		Components struct {
			SecuritySchemes map[string]struct {
				Type string `json:"type"`
			} `json:"securitySchemes"`
			Parameters map[string]struct {
				Schema struct {
					Type []string `json:"type"`
					Enum []any    `json:"enum"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapiJSON, &doc); err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	// note: Redocly's info-license-strict; OpenAPI 3.1 allows one of the two
	if l := doc.Info.License; l == nil || l.Name == "" || (l.URL == "") == (l.Identifier == "") {
		t.Errorf("info.license %+v: want a name and either a url or an identifier", l)
	}
	if doc.Info.Contact == nil {
		t.Error("no info.contact")
	}
	check := func(at string, reqs []map[string][]string) {
		for _, req := range reqs {
			for name, scopes := range req {
				scheme, ok := doc.Components.SecuritySchemes[name]
				switch {
				case !ok:
					t.Errorf("%s: security scheme %q is not defined", at, name)
				case len(scopes) > 0 && scheme.Type != "oauth2" && scheme.Type != "openIdConnect":
					t.Errorf("%s: scopes %v on the %s scheme %q", at, scopes, scheme.Type, name)
				}
			}
		}
	}
	check("the document", doc.Security)
	for path, item := range doc.Paths {
		for method, op := range item {
			if op.Security != nil {
				check(strings.ToUpper(method)+" "+path, *op.Security)
			}
		}
	}
	// a generated client types dryRun from its schema: it must take the
	// boolean true as well as the text "true"
	dry := doc.Components.Parameters["dryRun"].Schema
	var texts []string
	for _, v := range dry.Enum {
		texts = append(texts, fmt.Sprint(v)) // note: as a query string carries it
	}
	if !slices.Contains(dry.Type, "boolean") || !slices.Contains(dry.Enum, any(true)) || !slices.Contains(dry.Enum, any("true")) {
		t.Fatalf("dryRun schema %+v, want the boolean true and the text \"true\" both", dry)
	}
	for _, v := range append(texts, "TRUE", " 1 ") {
		if _, err := queryBool(url.Values{"dryRun": {v}}, "dryRun"); err != nil {
			t.Errorf("dryRun=%q, documented, is refused: %v", v, err)
		}
	}
	for _, v := range []string{"yes", "2", "on"} {
		if _, err := queryBool(url.Values{"dryRun": {v}}, "dryRun"); err == nil {
			t.Errorf("dryRun=%q, not documented, is taken", v)
		}
	}
}
