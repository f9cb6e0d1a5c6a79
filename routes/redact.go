package routes

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// keyInText matches an API key in decoded text, with whatever key
// characters follow it.
var keyInText = regexp.MustCompile(`(?i)` + regexp.QuoteMeta(apikey.Prefix) + `[A-Za-z0-9_-]*`)

// redactedKey replaces a key found in a logged field.
const redactedKey = apikey.Prefix + "REDACTED"

// maxDecodes is how many times a logged field is percent-decoded to look
// for a key: a key encoded twice (%2563ek_) still reads as one to whoever
// decodes the log twice.
const maxDecodes = 3

// redactKeyInURL keeps API keys out of PocketBase's request log, which
// records each request's URL (path and query), Referer and User-Agent after
// its handler has run. A key may be there by mistake (the key goes in the
// X-Api-Client-Key header, and a request with it in the URL is refused) or
// on purpose, percent-encoded (%63ek_...) or not. This middleware runs inside
// the logger and, once the handler is done (so the handler sees the request
// as it came), replaces every key it finds after decoding each field.
func redactKeyInURL() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "enrichmentRedactKeyInURL",
		Priority: apis.DefaultActivityLoggerMiddlewarePriority + 1,
		Func: func(e *core.RequestEvent) error {
			err := e.Next()
			redactRequest(e)
			return err
		},
	}
}

// redactRequest replaces the keys in every field of the request that the
// request log records.
func redactRequest(e *core.RequestEvent) {
	u := e.Request.URL
	if path, ok := redactText(u.EscapedPath(), url.PathUnescape); ok {
		u.Path, u.RawPath = path, ""
	}
	if hasKeyInQuery(e) {
		parts := strings.Split(u.RawQuery, "&")
		for i, part := range parts {
			if redacted, ok := redactText(part, url.QueryUnescape); ok {
				parts[i] = strings.ReplaceAll(url.QueryEscape(redacted), "%3D", "=")
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	for _, name := range []string{"Referer", "User-Agent"} {
		if v, ok := redactText(e.Request.Header.Get(name), url.QueryUnescape); ok {
			e.Request.Header.Set(name, v)
		}
	}
}

// redactText looks for a key in s and in s decoded up to maxDecodes times;
// when it finds one, it returns the most decoded form with every key
// replaced, and true.
func redactText(s string, unescape func(string) (string, error)) (string, bool) {
	found := false
	for range maxDecodes + 1 {
		if keyInText.MatchString(s) {
			found = true
		}
		decoded, err := unescape(s)
		if err != nil || decoded == s {
			break
		}
		s = decoded
	}
	if !found {
		return "", false
	}
	return keyInText.ReplaceAllLiteralString(s, redactedKey), true
}

// hasKeyInQuery reports whether the request's query string holds what
// looks like an API key, percent-encoded or not.
func hasKeyInQuery(e *core.RequestEvent) bool {
	_, found := redactText(e.Request.URL.RawQuery, url.QueryUnescape)
	return found
}
