package routes

import (
	"bytes"
	"encoding/json/jsontext"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
)

// Submission limits.
const (
	maxItems         = 1000
	maxExternalIDLen = 255
	maxItemErrors    = 50 // a broken batch reports this many paths at most
)

// submissionRequest is the body of POST /products/submissions as it was
// read: its externalSubmissionId, one proposal per item, the paths at fault
// and, when asked for, the hash of its content.
type submissionRequest struct {
	ExternalSubmissionID *string
	items                int // items read; reading stops at maxItems+1
	proposals            []enrichment.Proposal
	errs                 itemErrors
	hash                 string // "" unless hashed and the request names an id
	model                *enrichment.Model
	badModel             bool // the batch's model is malformed
}

// readSubmission reads e's body as a stream, an item at a time: no copy of
// the whole body is ever held, only the proposals made of it (and, for a
// request whose items come before its externalSubmissionId, their canonical
// form until the id is known; see requestHash). hashed asks for the
// idempotency hash. It answers 413 past the route's body limit and 400 for a
// body that is not a JSON object of the right shape; anything wrong inside
// the items is left to validate.
func readSubmission(e *core.RequestEvent, hashed bool) (submissionRequest, error) {
	req := submissionRequest{errs: itemErrors{}}
	var h *requestHash
	if hashed {
		h = &requestHash{}
	}
	dec := jsontext.NewDecoder(e.Request.Body)
	tok, err := dec.ReadToken()
	switch {
	case errors.Is(err, io.EOF):
		return req, e.BadRequestError("The request body must be a JSON object.", nil)
	case err != nil:
		return req, bodyError(e, err)
	case tok.Kind() != '{':
		return req, e.BadRequestError("The request body must be a JSON object.", nil)
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return req, bodyError(e, err)
		}
		if stop, err := req.readMember(e, dec, h, tok.String()); err != nil || stop {
			return req, err
		}
	}
	if _, err := dec.ReadToken(); err != nil { // the closing brace
		return req, bodyError(e, err)
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) { // nothing after it
		return req, bodyError(e, err)
	}
	req.hash = h.finish()
	return req, nil
}

// readMember reads the value of the body's member name. stop says that the
// rest of the body is not worth reading (too many items: validate refuses
// the request).
func (r *submissionRequest) readMember(e *core.RequestEvent, dec *jsontext.Decoder, h *requestHash, name string) (stop bool, err error) {
	switch name {
	case "externalSubmissionId":
		return false, r.readExternalID(e, dec, h)
	case "model":
		raw, err := dec.ReadValue()
		if err != nil {
			return false, bodyError(e, err)
		}
		h.setModel(raw)
		m, unknown, ok := readModel(jsontext.NewDecoder(bytes.NewReader(raw)))
		switch {
		case unknown != "":
			return false, unknownMember(e, "model."+unknown)
		case !ok:
			r.badModel = true
		}
		r.model = m
		return false, nil
	case "items":
		switch dec.PeekKind() {
		case 'n':
			if _, err := dec.ReadToken(); err != nil {
				return false, bodyError(e, err)
			}
			return false, nil
		case '[':
			if err := r.readItems(dec, h); err != nil {
				return false, bodyError(e, err)
			}
			return r.items > maxItems, nil
		default:
			return false, wrongType(e, "items")
		}
	default:
		return false, unknownMember(e, name)
	}
}

// readExternalID reads externalSubmissionId, a string or null, and names it
// to h.
func (r *submissionRequest) readExternalID(e *core.RequestEvent, dec *jsontext.Decoder, h *requestHash) error {
	switch dec.PeekKind() {
	case 'n', '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return bodyError(e, err)
		}
		if tok.Kind() == '"' {
			id := tok.String()
			r.ExternalSubmissionID = &id
		}
		h.identify(r.ExternalSubmissionID)
		return nil
	default:
		return wrongType(e, "externalSubmissionId")
	}
}

// readItems reads the items array, turning each item into a proposal as it
// arrives and feeding its canonical form to h (nil: not hashed).
func (r *submissionRequest) readItems(dec *jsontext.Decoder, h *requestHash) error {
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	var items itemParser
	for dec.PeekKind() != ']' {
		raw, err := dec.ReadValue() // note: valid until the next read of dec
		if err != nil {
			return err
		}
		r.items++
		if r.items > maxItems {
			return nil
		}
		h.addItem(raw)
		r.proposals = append(r.proposals, items.parse(r.items-1, raw, r.errs))
	}
	_, err := dec.ReadToken()
	return err
}

// idempotencyKey is, for a request that names an externalSubmissionId and
// was hashed, its key; nil otherwise.
func (r submissionRequest) idempotencyKey() *store.IdempotencyKey {
	if r.ExternalSubmissionID == nil || *r.ExternalSubmissionID == "" || r.hash == "" {
		return nil
	}
	return &store.IdempotencyKey{Key: *r.ExternalSubmissionID, RequestHash: r.hash}
}

// itemErrors collects validation errors keyed by field path (items.3.confidence).
type itemErrors validation.Errors

func (errs itemErrors) add(path, code, message string) {
	if len(errs) < maxItemErrors {
		errs[path] = validation.NewError(code, message)
	}
}

// validate checks the envelope and the items and returns the proposals. A
// non-nil error means the whole batch is refused.
func (r submissionRequest) validate() ([]enrichment.Proposal, string, validation.Errors) {
	switch {
	case r.items == 0:
		return nil, "Submission must contain at least one item.",
			validation.Errors{"items": validation.NewError("validation_required", "cannot be blank")}
	case r.items > maxItems:
		return nil, "Submission exceeds the maximum of " + strconv.Itoa(maxItems) + " items.",
			validation.Errors{"items": validation.NewError("validation_length_too_long", "must have at most 1000 items")}
	case r.ExternalSubmissionID != nil && utf8.RuneCountInString(*r.ExternalSubmissionID) > maxExternalIDLen:
		return nil, "externalSubmissionId is too long.",
			validation.Errors{"externalSubmissionId": validation.NewError("validation_length_too_long", "must be at most 255 characters")}
	case r.badModel:
		return nil, "Invalid model.", validation.Errors{"model": validation.NewError("validation_invalid_model", modelRule)}
	case len(r.errs) > 0:
		return nil, firstMessage(validation.Errors(r.errs)), validation.Errors(r.errs)
	}
	if r.model != nil {
		for i := range r.proposals {
			if r.proposals[i].Model == nil {
				r.proposals[i].Model = r.model
			}
		}
	}
	return r.proposals, "", nil
}

// bodyError is the answer to a body that could not be read as JSON: 413
// past the route's body limit, 400 otherwise.
func bodyError(e *core.RequestEvent, err error) error {
	if errors.Is(err, apis.ErrRequestEntityTooLarge) {
		return apis.ErrRequestEntityTooLarge
	}
	return e.BadRequestError("The request body is not valid JSON.", nil)
}

// wrongType is the 400 for a member of the body that has the wrong type.
func wrongType(e *core.RequestEvent, path string) error {
	return e.BadRequestError("Invalid request body.", validation.Errors{
		path: validation.NewError("validation_invalid_type", "Has the wrong type."),
	})
}
