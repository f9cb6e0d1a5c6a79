package routes

import (
	"encoding/json/v2"
	"errors"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/timeparam"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
)

// readJSON decodes a small request body into dst: 413 past the route's body
// limit, 400 for anything that is not JSON of dst's shape. (Submissions,
// up to 16 MiB, are read as a stream instead: readSubmission.)
func readJSON(e *core.RequestEvent, dst any) error {
	body, err := io.ReadAll(e.Request.Body)
	if errors.Is(err, apis.ErrRequestEntityTooLarge) {
		return apis.ErrRequestEntityTooLarge
	}
	if err != nil {
		return e.BadRequestError("Could not read the request body.", nil)
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return e.BadRequestError("The request body must be a JSON object.", nil)
	}
	if err := json.Unmarshal(body, dst); err != nil {
		var semantic *json.SemanticError
		if errors.As(err, &semantic) && semantic.JSONPointer != "" {
			path := strings.ReplaceAll(strings.TrimPrefix(string(semantic.JSONPointer), "/"), "/", ".")
			return e.BadRequestError("Invalid request body.", validation.Errors{
				path: validation.NewError("validation_invalid_type", "Has the wrong type."),
			})
		}
		return e.BadRequestError("The request body is not valid JSON.", nil)
	}
	return nil
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
