package routes

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"
)

// internalError logs err with what the handler was doing and answers a plain
// 500: raw errors never reach a response.
func internalError(e *core.RequestEvent, doing string, err error) error {
	e.App.Logger().Error("enrichment: "+doing, "error", err.Error(), "path", e.Request.URL.Path)
	return e.Error(http.StatusInternalServerError, "Something went wrong while processing your request.", nil)
}
