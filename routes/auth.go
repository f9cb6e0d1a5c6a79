package routes

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/catalog-enrichment/enrichment/apierror"
	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"github.com/catalog-enrichment/enrichment/ratelimit"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"
)

// KeyHeader carries the raw API key on every request.
const KeyHeader = "X-Api-Client-Key"

// touchInterval is how stale lastUsedAt may get: a busy key costs one write
// per interval, and a key's first use still shows at once.
const touchInterval = 30 * time.Second

// clientKey is the request value in which the key middleware keeps the
// authenticated client.
const clientKey = "enrichmentClient"

// newLimiter is the rate limiter of app's keys, on app's clock (read at
// each use, so a clock a test sets later counts).
func newLimiter(app core.App) *ratelimit.Limiter {
	return ratelimit.New(func() time.Time { return clock.Now(app) })
}

// requireAPIKey authenticates the request's key, remembers its client and
// takes a token from the client's rate limit bucket.
func requireAPIKey(limiter *ratelimit.Limiter) *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "enrichmentAPIKey",
		Func: func(e *core.RequestEvent) error {
			raw := e.Request.Header.Get(KeyHeader)
			if raw == "" {
				raw = bearerKey(e)
			}
			if raw == "" && hasKeyInQuery(e) {
				return e.UnauthorizedError("API keys go in the "+KeyHeader+" header, never in the URL: "+
					"a URL is logged on its way (proxies, browsers); rotate this key.", nil)
			}
			if raw == "" && e.Request.URL.Path == Prefix+MCPPath {
				return e.UnauthorizedError("Missing API key: send it as Authorization: Bearer KEY or in the "+KeyHeader+" header.", nil)
			}
			if raw == "" {
				return e.UnauthorizedError("Missing API key: send it in the "+KeyHeader+" header.", nil)
			}
			st, keyHash, now := store.New(e.App), apikey.Hash(raw), clock.Now(e.App)
			client, err := st.Accounts().ClientByKeyHash(keyHash, now)
			if errors.Is(err, enrichment.ErrNotFound) || (err == nil && !client.Active) {
				return e.UnauthorizedError("Invalid or inactive API key.", nil)
			}
			if err != nil {
				return internalError(e, "authenticate api key", err)
			}
			if now.Sub(client.LastUsedAt) > touchInterval {
				if err := st.Accounts().RecordKeyUse(keyHash, client, now); err != nil {
					// note: a missed lastUsedAt is not worth failing the request
					e.App.Logger().Warn("enrichment: record key use", "error", err.Error(), "client", client.ID)
				}
			}
			e.Set(clientKey, client)
			if client.RateLimit > 0 && !inMCPSession(e) {
				if err := applyRateLimit(e, limiter.Allow(client.ID, client.RateLimit)); err != nil {
					return err
				}
			}
			return e.Next()
		},
	}
}

// applyRateLimit reports the client's bucket in the RateLimit-* headers and
// refuses the request with 429 and Retry-After when the bucket is empty.
func applyRateLimit(e *core.RequestEvent, d ratelimit.Decision) error {
	h := e.Response.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("RateLimit-Reset", wholeSeconds(d.Reset))
	if d.Allowed {
		return nil
	}
	h.Set("Retry-After", wholeSeconds(d.RetryAfter))
	return rateLimited(e.App, d)
}

// rateLimited is the 429 of a request d refused, counted for the operators.
func rateLimited(app core.App, d ratelimit.Decision) error {
	opsmetrics.Of(app).RateLimited.Inc()
	return router.NewTooManyRequestsError(fmt.Sprintf(
		"Rate limit exceeded: this key may make %d requests at once and %d per second; retry after %s s.",
		d.Limit, d.Limit/ratelimit.BurstFactor, wholeSeconds(d.RetryAfter)), nil)
}

// wholeSeconds rounds up to whole seconds, at least 1, as the headers want.
func wholeSeconds(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

// requireScope refuses a client that lacks scope.
func requireScope(scope string) *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "enrichmentScope",
		Func: func(e *core.RequestEvent) error {
			if c := requestClient(e); !c.HasScope(scope) {
				return apierror.Forbidden(scope)
			}
			return e.Next()
		},
	}
}

// requestClient is the authenticated client of the request.
func requestClient(e *core.RequestEvent) enrichment.Client {
	c, _ := e.Get(clientKey).(enrichment.Client)
	return c
}

// requestOrg is the organization the request acts for; it comes only from the key.
func requestOrg(e *core.RequestEvent) enrichment.Org {
	return requestClient(e).Org
}
