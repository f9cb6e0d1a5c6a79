package enrichment

import "errors"

// Error is a rule of the domain that a request broke: the store returns it,
// and the routes and hooks turn it into an API error (400 for Invalid) whose
// data names Field, in PocketBase's validation shape.
type Error struct {
	Code    string // one of the Err* codes
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
	ErrInvalid  = "invalid"   // the request breaks a rule: 400
	ErrNotFound = "not_found" // the record does not exist for this caller: 404
)

func (e *Error) Error() string { return e.Message }

// Invalid is an *Error with code ErrInvalid.
func Invalid(field, rule, message, detail string) *Error {
	return &Error{Code: ErrInvalid, Field: field, Rule: rule, Message: message, Detail: detail}
}

// AsError returns err's *Error, if it is or wraps one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
