package routes

import (
	"net/http"

	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// busyRetryAfter is the Retry-After, in seconds, of the 503 a request gets
// when the database stayed locked past its busy timeout.
const busyRetryAfter = "10"

// internalError logs err with what the handler was doing and answers a plain
// 500, or a 503 with Retry-After when the database stayed locked past its
// busy timeout (a long import on the command line holds its write lock):
// raw errors never reach a response.
func internalError(e *core.RequestEvent, doing string, err error) error {
	e.App.Logger().Error("enrichment: "+doing, "error", err.Error(), "path", e.Request.URL.Path)
	if store.Busy(err) {
		e.Response.Header().Set("Retry-After", busyRetryAfter)
		return e.Error(http.StatusServiceUnavailable, "The database is busy with a long write (an import, say); retry in a few seconds.", nil)
	}
	return e.Error(http.StatusInternalServerError, "Something went wrong while processing your request.", nil)
}
