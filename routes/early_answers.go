package routes

import (
	"cmp"
	"errors"
	"io"
	"net/http"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"
)

// closeUnread sends every answer given before the request's body was read
// to its end (a 401, 403, 404, 413, 415 or 429 refuses a request without
// reading it) at once, and closes the connection. Otherwise Go's server
// reads up to 256 KiB of the unread body to keep the connection, both
// when the body is closed (PocketBase's router closes it as the handler
// returns, before the answer is flushed) and when the answer's header is
// written, so a client that declared a body and stalled would hold the
// answer until a read deadline. So the answer says Connection: close, and
// closing an unread body ends the connection's reading at once. Once the
// handler has read the body to its end, the header goes and the connection
// is kept as usual. It runs before the rate limit, the first middleware
// that may refuse a request.
func closeUnread() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "enrichmentCloseUnread",
		Priority: apis.DefaultLoadAuthTokenMiddlewarePriority - 1,
		Func: func(e *core.RequestEvent) error {
			if !hasBody(e.Request) {
				return e.Next()
			}
			header := e.Response.Header()
			header.Set("Connection", "close")
			body := &e.Request.Body
			if copied, ok := e.Request.Body.(*router.RereadableReadCloser); ok {
				body = &copied.ReadCloser // note: under the copy, so that a reread is not taken for the end
			}
			*body = &untilEnd{ReadCloser: *body, conn: http.NewResponseController(e.Response),
				end: func() { header.Del("Connection") }}
			return e.Next()
		},
	}
}

// untilEnd is a request body that calls end once it has been read to its
// end; closed before that, it stops the connection's reading.
type untilEnd struct {
	io.ReadCloser
	conn *http.ResponseController
	end  func() // nil once called
}

func (b *untilEnd) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && b.end != nil {
		b.end()
		b.end = nil
	}
	return n, err
}

// Close closes the body; when it was not read to its end, the connection's
// read deadline passes first, so that the server gives up the rest at once
// instead of waiting for it (and then closes the connection).
func (b *untilEnd) Close() error {
	if b.end != nil {
		// note: a writer that cannot set deadlines (a test recorder) has no connection to wait on
		_ = b.conn.SetReadDeadline(clock.Wall())
	}
	return b.ReadCloser.Close()
}

// hasBody tells whether r declares a body (a length, or chunks).
func hasBody(r *http.Request) bool {
	return r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody
}

// definesNoBody has a GET route, which reads no body, refuse one's members
// as every route refuses those it does not define (readNoBody). With a
// body, the route answers into a buffer first: a refusal it makes (a 404,
// say) goes out without the body read, as every early answer does, and
// the answer it would give waits until the body is read and found empty.
func definesNoBody(h func(*core.RequestEvent) error) func(*core.RequestEvent) error {
	return func(e *core.RequestEvent) error {
		if !hasBody(e.Request) {
			return h(e)
		}
		sent := e.Response
		held := &heldAnswer{header: http.Header{}}
		e.Response = held
		err := h(e)
		e.Response = sent
		if err != nil {
			return err
		}
		if err := readNoBody(e); err != nil {
			return err
		}
		return held.sendTo(sent)
	}
}

// heldAnswer is an answer written and not yet sent.
type heldAnswer struct {
	header http.Header
	status int
	body   []byte
}

func (a *heldAnswer) Header() http.Header { return a.header }

func (a *heldAnswer) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
}

func (a *heldAnswer) Write(p []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	a.body = append(a.body, p...)
	return len(p), nil
}

// sendTo sends the answer held on w.
func (a *heldAnswer) sendTo(w http.ResponseWriter) error {
	for name, values := range a.header {
		w.Header()[name] = values
	}
	w.WriteHeader(cmp.Or(a.status, http.StatusOK))
	_, err := w.Write(a.body)
	return err
}
