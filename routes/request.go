package routes

import (
	"bytes"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/timeparam"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
)

// Every JSON body of the API is strict: a member the route does not
// define, including one that differs from a defined name only in letter
// case ("DryRun" for "dryRun"), is 400 naming it, before anything is done.
// Struct bodies are read by readJSON; submissions, read as a stream, name
// theirs with unknownMember (an item's own unknown fields are the one
// exception: ignoredFields).

// readJSON decodes a small request body into dst: 413 past the route's body
// limit, 400 for anything that is not JSON of dst's shape, or that has a
// member dst does not define. (Submissions, up to 16 MiB, are read as a
// stream instead: readSubmission.)
func readJSON(e *core.RequestEvent, dst any) error {
	body, err := readBody(e)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return e.BadRequestError("The request body must be a JSON object.", nil)
	}
	return decodeJSON(e, body, dst)
}

// readBody reads a small request body whole: 413 past the route's limit.
func readBody(e *core.RequestEvent) ([]byte, error) {
	body, err := io.ReadAll(e.Request.Body)
	if errors.Is(err, apis.ErrRequestEntityTooLarge) {
		return nil, apis.ErrRequestEntityTooLarge
	}
	if err != nil {
		return nil, e.BadRequestError("Could not read the request body.", nil)
	}
	return body, nil
}

// decodeJSON decodes body into dst, strictly: 400 naming a member dst does
// not define, or one of the wrong type.
func decodeJSON(e *core.RequestEvent, body []byte, dst any) error {
	// note: v2 matches names by their exact case unless told otherwise
	if err := json.Unmarshal(body, dst, json.RejectUnknownMembers(true)); err != nil {
		var semantic *json.SemanticError
		if errors.As(err, &semantic) && semantic.JSONPointer != "" {
			path := strings.Join(slices.Collect(semantic.JSONPointer.Tokens()), ".")
			if errors.Is(err, json.ErrUnknownName) {
				return unknownMember(e, path)
			}
			return e.BadRequestError("Invalid request body.", validation.Errors{
				path: validation.NewError("validation_invalid_type", "Has the wrong type."),
			})
		}
		switch {
		case errors.Is(err, jsontext.ErrDuplicateName):
			return e.BadRequestError("The request body names a member twice.", nil)
		case errors.As(err, &semantic):
			return e.BadRequestError("The request body must be a JSON object.", nil)
		}
		return e.BadRequestError("The request body is not valid JSON.", nil)
	}
	return nil
}

// readNoBody reads the body of a request that defines none: empty, or a
// JSON object without members; a member is 400 naming it, anything else
// 400, past the route's limit 413.
func readNoBody(e *core.RequestEvent) error {
	body, err := readBody(e)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return err
	}
	return decodeJSON(e, body, &struct{}{})
}

// unknownMember is the 400 for a member of the body, at path (items.0.model.x),
// that the route does not define.
func unknownMember(e *core.RequestEvent, path string) error {
	return e.BadRequestError("Unknown member "+path+": the request does not define it (names are case-sensitive).",
		validation.Errors{path: unknownMemberError()})
}

// unknownMemberCode is the validation code of an undefined member.
const unknownMemberCode = "validation_unknown_member"

// unknownMemberError is the validation error of an undefined member.
func unknownMemberError() validation.Error {
	return validation.NewError(unknownMemberCode, "Is not defined for this request; names are case-sensitive.")
}

// readPaging reads page (default 0, not negative) and pageSize (default
// defaultPageSize, clamped into 1..maxPageSize) like the product export,
// adding any error to errs.
func readPaging(values url.Values, errs validation.Errors) (page, pageSize int) {
	var err error
	if page, err = queryInt(values, "page", 0); err != nil {
		errs["page"] = err
	} else if page < 0 {
		errs["page"] = validation.NewError("validation_min_greater_equal_than_required", "must be 0 or more")
	}
	if pageSize, err = queryInt(values, "pageSize", defaultPageSize); err != nil {
		errs["pageSize"] = err
	}
	return page, min(max(pageSize, 1), maxPageSize)
}

// queryInt reads an optional integer query parameter.
func queryInt(q url.Values, name string, def int) (int, error) {
	raw := q.Get(name)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if errors.Is(err, strconv.ErrRange) {
		return n, nil // note: a whole number past int's range, as its bound: each caller checks its own range
	}
	if err != nil {
		return 0, validation.NewError("validation_not_integer", "must be a whole number")
	}
	return n, nil
}

// queryBool reads an optional boolean query parameter: true/false or 1/0.
func queryBool(q url.Values, name string) (bool, error) {
	return parseFlag(q.Get(name))
}

// parseFlag reads a flag sent as text: true/false or 1/0, in any letter
// case and with spaces around; empty is false.
func parseFlag(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	}
	return false, errors.New("must be true or false")
}

// queryTime reads an optional time query parameter; zero when absent.
func queryTime(q url.Values, name string) (time.Time, error) {
	raw := q.Get(name)
	if raw == "" {
		return time.Time{}, nil
	}
	t, err := timeparam.Parse(raw)
	if err != nil {
		return time.Time{}, validation.NewError("validation_invalid_time", err.Error())
	}
	return t, nil
}
