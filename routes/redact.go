package routes

import (
	"regexp"
	"strings"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// keyInQuery matches an API key in a raw query string, its underscore
// possibly percent-encoded, with whatever follows it in that value.
var keyInQuery = regexp.MustCompile(`(?i)` + regexp.QuoteMeta(strings.TrimSuffix(apikey.Prefix, "_")) +
	`(?:_|%5f)[A-Za-z0-9_%.~-]*`)

// redactedKey replaces a key found in a URL.
const redactedKey = apikey.Prefix + "REDACTED"

// redactKeyInURL keeps API keys sent in a query string (by mistake: the
// key goes in the X-Api-Client-Key header, and such a request is refused)
// out of PocketBase's request log, which records each request's URL after
// its handler has run. This middleware runs inside the logger and replaces
// any key in the query once the handler is done, so the handler still sees
// the request as it came.
func redactKeyInURL() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "enrichmentRedactKeyInURL",
		Priority: apis.DefaultActivityLoggerMiddlewarePriority + 1,
		Func: func(e *core.RequestEvent) error {
			err := e.Next()
			if hasKeyInQuery(e) {
				e.Request.URL.RawQuery = keyInQuery.ReplaceAllLiteralString(e.Request.URL.RawQuery, redactedKey)
			}
			return err
		},
	}
}

// hasKeyInQuery reports whether the request's query string holds what
// looks like an API key.
func hasKeyInQuery(e *core.RequestEvent) bool {
	return keyInQuery.MatchString(e.Request.URL.RawQuery)
}
