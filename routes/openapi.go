package routes

import (
	_ "embed"
	"net/http"

	"github.com/pocketbase/pocketbase/core"
)

// openapiJSON is the hand-written OpenAPI 3.1 document of the whole API;
// openapi_test.go checks it against the route table and the real responses.
//
//go:embed openapi.json
var openapiJSON []byte

// openapiDocument serves the OpenAPI document without a key. It is bound for
// every method next to the catch-all, so another method gets 405 with Allow
// like the API's other paths.
func openapiDocument(e *core.RequestEvent) error {
	if e.Request.Method != http.MethodGet && e.Request.Method != http.MethodHead {
		e.Response.Header().Set("Allow", http.MethodGet)
		return e.Error(http.StatusMethodNotAllowed, "Method not allowed; use GET.", nil)
	}
	e.Response.Header().Set("Cache-Control", "no-cache")
	return e.Blob(http.StatusOK, "application/json", openapiJSON)
}
