package routes

import (
	"mime"
	"net/http"
	"strings"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// jsonBody answers 415 to a request whose body declares a Content-Type
// other than application/json (parameters such as charset aside, the type
// in any letter case): the API reads every body as JSON, so a form, a
// text/plain body (curl's -d sends a form type) or XML is refused for what
// it says it is rather than read as JSON by chance. A body with no
// Content-Type is still read as JSON, and a request without a body passes.
func jsonBody() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "enrichmentJSONBody",
		Func: func(e *core.RequestEvent) error {
			declared := e.Request.Header.Get("Content-Type")
			if e.Request.ContentLength == 0 || strings.TrimSpace(declared) == "" {
				return e.Next()
			}
			if media, _, err := mime.ParseMediaType(declared); err != nil || media != "application/json" {
				return e.Error(http.StatusUnsupportedMediaType,
					"The request body must be JSON, sent as Content-Type: application/json.", nil)
			}
			return e.Next()
		},
	}
}
