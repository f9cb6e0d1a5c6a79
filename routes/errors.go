package routes

import (
	"net/http"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// exactError is an API error whose message is sent exactly as given
// (PocketBase's constructors capitalise it and add a full stop).
func exactError(status int, message string) *router.ApiError {
	return &router.ApiError{Status: status, Message: message, Data: map[string]any{}}
}

// internalError logs err with what the handler was doing and answers a plain
// 500: raw errors never reach a response.
func internalError(e *core.RequestEvent, doing string, err error) error {
	e.App.Logger().Error("enrichment: "+doing, "error", err.Error(), "path", e.Request.URL.Path)
	return e.Error(http.StatusInternalServerError, "Something went wrong while processing your request.", nil)
}
