package routes

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/bodybudget"
	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"
)

// Request bodies in flight are bounded in total across the server, so that
// a burst of large bodies (forty 16 MiB submissions at once) cannot take
// the server's memory: a request takes its body's size from the budget
// before the body is read and gives it back once answered. Two middlewares
// of the same id share the work: one bound on the whole server, for
// PocketBase's own routes (after the body limit: a body over it is refused
// first), and one on each API route, after the key and scope checks (a
// request without a valid key never holds any of it), where the client is
// the holder whose share is limited; PocketBase's routes are held per
// address. Superusers pass, as with PocketBase's rate limiter.
//
// An anonymous request (no key, no token: PocketBase's sign-in, realtime and
// records routes) is metered instead: it is charged only for what it has
// read, sends at most anonymousBody, and all of them together hold at most
// anonymousShare. And every body that sends nothing for bodyIdle is cut off.
const (
	// bodyBudget is the bytes of bodies in flight at once: four full
	// submissions, or about ninety batches of a thousand ordinary items.
	bodyBudget = 64 << 20
	// smallBody and smaller pass without the budget: the other routes'
	// limit; what such bodies hold at once is bounded by the rate limits.
	smallBody = defaultBodyLimit
	// bodyWait is how long a request waits for room before its 503.
	bodyWait = 2 * time.Second
	// bodyRetryAfter is the Retry-After of that 503, in seconds.
	bodyRetryAfter = 2
	// anonymousBody is the most an anonymous request may send, and so hold.
	anonymousBody = 1 << 20
	// anonymousShare is what all anonymous requests together may hold.
	anonymousShare = bodyBudget / 8
	// anonymousHolder holds the budget for every anonymous request.
	anonymousHolder = "anonymous"
)

// bodyIdle is how long a body may send nothing before it is cut off; Register
// reads it (tests shorten it).
var bodyIdle = 10 * time.Second

// bodyReadTimeout is how long a body may take in all, however steadily it
// trickles in: PocketBase's read timeout, which the idle deadline replaces.
const bodyReadTimeout = 5 * time.Minute

// bodyBudgetID names both budget middlewares: the route's replaces the
// server's.
const bodyBudgetID = "enrichmentBodyBudget"

// serverBodies takes every large body of PocketBase's own routes from b,
// held by the caller's address; an unknown size counts as a holder's share.
func serverBodies(b *bodybudget.Budget) *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       bodyBudgetID,
		Priority: apis.DefaultBodyLimitMiddlewarePriority + 1,
		Func: func(e *core.RequestEvent) error {
			if e.HasSuperuserAuth() || anonymous(e) { // note: anonymous bodies are metered
				return e.Next()
			}
			return withBody(e, b, "address "+e.RealIP(), b.Capacity())
		},
	}
}

// apiBodies takes a large body of an API route from b, held by the
// request's client; an unknown size counts as the route's limit.
func apiBodies(b *bodybudget.Budget, limit int64) *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       bodyBudgetID,
		Priority: 1, // after the key (0) and scope checks
		Func: func(e *core.RequestEvent) error {
			return withBody(e, b, "client "+strconv.FormatInt(requestClient(e).ID, 10), limit)
		},
	}
}

// withBody runs the rest of the chain with the request's body size taken
// from b, or answers 503 with Retry-After when there is no room for it.
func withBody(e *core.RequestEvent, b *bodybudget.Budget, holder string, unknownSize int64) error {
	size := e.Request.ContentLength
	if size < 0 {
		size = unknownSize // note: a chunked body: its size shows only as it is read
	}
	if size <= smallBody {
		return e.Next()
	}
	release, err := b.Take(e.Request.Context(), holder, size, bodyWait)
	if err != nil { // no room in time (or the client is gone)
		e.Response.Header().Set("Retry-After", strconv.Itoa(bodyRetryAfter))
		return e.Error(http.StatusServiceUnavailable, "The server is busy with other large requests; retry after "+
			strconv.Itoa(bodyRetryAfter)+" s.", nil)
	}
	defer release()
	return e.Next()
}

// readOnce lets an API route read its body straight from the connection.
// PocketBase copies every body it reads into a buffer, so that its own
// handlers may read it again; our handlers read theirs once, and for a
// 16 MiB submission that copy (up to twice its size as the buffer grows)
// was the largest single cost. It runs before the body limit, which then
// wraps the connection's body.
func readOnce() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "enrichmentReadOnce",
		Priority: apis.DefaultBodyLimitMiddlewarePriority - 1,
		Func: func(e *core.RequestEvent) error {
			if body, ok := e.Request.Body.(*router.RereadableReadCloser); ok {
				e.Request.Body = body.ReadCloser
			}
			return e.Next()
		},
	}
}

// anonymous reports whether a request comes with no token, outside the API:
// under Prefix, a request without a valid key or token is refused before
// its body is read.
func anonymous(e *core.RequestEvent) bool {
	return e.Auth == nil && !strings.HasPrefix(e.Request.URL.Path, Prefix+"/")
}

// meterBodies cuts off every body that sends nothing for idle, and meters an
// anonymous one in b: charged as it is read, at most anonymousBody (413
// beyond), with every anonymous request sharing anonymousShare. It runs
// before readOnce and the body limit, and wraps the connection's body
// itself, under PocketBase's re-readable copy, so that a reread is neither
// waited for nor charged again.
func meterBodies(b *bodybudget.Budget, idle time.Duration) *hook.Handler[*core.RequestEvent] {
	b.SetShare(anonymousHolder, anonymousShare)
	return &hook.Handler[*core.RequestEvent]{
		Id:       "enrichmentMeterBodies",
		Priority: apis.DefaultBodyLimitMiddlewarePriority - 2,
		Func: func(e *core.RequestEvent) error {
			if e.Request.ContentLength == 0 || e.Request.Body == nil || e.Request.Body == http.NoBody {
				return e.Next()
			}
			body := &e.Request.Body
			if copied, ok := e.Request.Body.(*router.RereadableReadCloser); ok {
				body = &copied.ReadCloser
			}
			*body = &idleBody{ReadCloser: *body, conn: http.NewResponseController(e.Response), idle: idle,
				end: clock.Wall().Add(bodyReadTimeout)}
			if e.HasSuperuserAuth() || !anonymous(e) {
				return e.Next()
			}
			if e.Request.ContentLength > anonymousBody {
				return apis.ErrRequestEntityTooLarge
			}
			m := b.Meter(*body, anonymousHolder, smallBody, anonymousBody)
			defer m.Release()
			*body = struct {
				io.Reader
				io.Closer
			}{m, *body}
			return e.Next()
		},
	}
}

// idleBody is a request body cut off when the client sends nothing for idle,
// or has not sent it all by end: each read must return within idle (and
// before end), through the connection's read deadline.
type idleBody struct {
	io.ReadCloser
	conn   *http.ResponseController
	idle   time.Duration
	end    time.Time
	lifted bool
}

// Read reads with the deadline set; once the body is over it lifts it.
// note: lifted because, at the body's end, net/http starts a background read
// of the connection that would otherwise fail at the deadline and cancel
// the request's context while it is being handled.
func (b *idleBody) Read(p []byte) (int, error) {
	if b.lifted {
		return b.ReadCloser.Read(p)
	}
	deadline := clock.Wall().Add(b.idle)
	if deadline.After(b.end) {
		deadline = b.end
	}
	// note: a writer that cannot set deadlines (a test recorder) reads without
	_ = b.conn.SetReadDeadline(deadline)
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.lifted = true
		_ = b.conn.SetReadDeadline(time.Time{})
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("the request body sent nothing for %s, or not all of it in %s: %w", b.idle, bodyReadTimeout, err)
	}
	return n, err
}
