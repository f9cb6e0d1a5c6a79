package enrichment

import "errors"

// Error is the domain's one kind of refusal: a rule a request broke, or a
// record that does not exist for the caller. The store and the rules return
// it; package apierror turns it into PocketBase's error response by its
// Code (400 for CodeInvalid, with data naming Field in PocketBase's
// validation shape; 404 for CodeNotFound; 409 for CodeConflict), for the routes and the hooks
// alike.
type Error struct {
	Code    string // CodeInvalid, CodeNotFound or CodeConflict
	Field   string // the request field at fault, "" when none
	Rule    string // a machine-readable name of the rule, e.g. "validation_decision_final"
	Message string // a sentence for the response's message
	Detail  string // a short sentence about Field
	// Details, when set, replaces Detail with nested errors about Field's
	// parts (the validation errors of a record that could not be saved).
	Details error
}

// Error codes.
const (
	CodeInvalid  = "invalid"   // the request breaks a rule: 400
	CodeNotFound = "not_found" // the record does not exist for this caller: 404
	CodeConflict = "conflict"  // the record's state refuses the request for now: 409
)

// ErrNotFound matches, with errors.Is, every error of code CodeNotFound: a
// looked-up record that does not exist, or belongs to another organization,
// which callers must not be able to tell apart.
var ErrNotFound = &Error{Code: CodeNotFound, Message: "Not found."}

func (e *Error) Error() string { return e.Message }

// Is makes errors.Is(err, ErrNotFound) hold for every not-found error.
func (e *Error) Is(target error) bool {
	return target == ErrNotFound && e.Code == CodeNotFound
}

// Invalid is an *Error with code CodeInvalid.
func Invalid(field, rule, message, detail string) *Error {
	return &Error{Code: CodeInvalid, Field: field, Rule: rule, Message: message, Detail: detail}
}

// NotFound is an *Error with code CodeNotFound about a kind of record:
// NotFound("webhook") says "No such webhook.".
func NotFound(what string) *Error {
	return &Error{Code: CodeNotFound, Message: "No such " + what + "."}
}

// AsError returns err's *Error, if it is or wraps one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
