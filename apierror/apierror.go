// Package apierror is the one mapping from the domain's errors to
// PocketBase's error responses ({"status", "message", "data"}), used by the
// routes and the hooks alike. Raw errors never reach a response: they are
// logged, and the caller answers a plain 500.
package apierror

import (
	"errors"
	"net/http"

	"github.com/catalog-enrichment/enrichment/enrichment"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/tools/router"
)

// From maps a domain error (an *enrichment.Error, or one that wraps it) to
// its response: 400 with data naming the field at fault for a broken rule,
// 404 for a record that does not exist for the caller, 409 for a record
// whose state refuses the request for now (another reviewer's claim). An *router.ApiError
// passes as it is. ok is false for any other error.
func From(err error) (apiErr *router.ApiError, ok bool) {
	if errors.As(err, &apiErr) {
		return apiErr, true
	}
	e, ok := enrichment.AsError(err)
	if !ok {
		return nil, false
	}
	switch e.Code {
	case enrichment.CodeNotFound:
		return router.NewNotFoundError(e.Message, nil), true
	case enrichment.CodeInvalid, enrichment.CodeConflict:
		var detail error = validation.NewError(e.Rule, e.Detail)
		if e.Details != nil {
			detail = e.Details
		}
		status := http.StatusBadRequest
		if e.Code == enrichment.CodeConflict {
			status = http.StatusConflict
		}
		return router.NewApiError(status, e.Message, validation.Errors{e.Field: detail}), true
	}
	return nil, false
}

// Or is From's response for a domain error, and err itself otherwise: for
// hooks, where PocketBase answers other errors itself.
func Or(err error) error {
	if apiErr, ok := From(err); ok {
		return apiErr
	}
	return err
}

// Exact is an error response whose message the API fixes word for word
// (PocketBase's constructors end a message with a full stop).
func Exact(status int, message string) *router.ApiError {
	e := router.NewApiError(status, message, nil)
	e.Message = message
	return e
}

// Forbidden is the 403 of a request whose credentials lack scope; its
// message is exactly "Missing required scope: SCOPE".
func Forbidden(scope string) *router.ApiError {
	return Exact(http.StatusForbidden, "Missing required scope: "+scope)
}
