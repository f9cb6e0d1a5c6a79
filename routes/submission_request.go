package routes

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
)

// Submission limits.
const (
	maxItems         = 1000
	maxExternalIDLen = 255
	maxItemErrors    = 50 // a broken batch reports this many paths at most
)

// submissionRequest is the body of POST /products/submissions.
type submissionRequest struct {
	ExternalSubmissionID *string          `json:"externalSubmissionId"`
	Items                []jsontext.Value `json:"items"`
}

// idempotencyKey returns, for a request that names an externalSubmissionId
// and is not a dry run, a function that yields the key with the request's
// hash; nil otherwise. The hash is computed on the other core while the
// caller validates: a tenth of a 1000-item batch's time.
func (r submissionRequest) idempotencyKey(dryRun bool) func() store.IdempotencyKey {
	if dryRun || r.ExternalSubmissionID == nil || *r.ExternalSubmissionID == "" {
		return nil
	}
	hash := make(chan string, 1)
	go func() { hash <- r.hash() }()
	return func() store.IdempotencyKey {
		return store.IdempotencyKey{Key: *r.ExternalSubmissionID, RequestHash: <-hash}
	}
}

// hash identifies the request's content whatever its formatting: the same
// JSON values give the same hash.
func (r submissionRequest) hash() string {
	encoded, _ := json.Marshal(r)
	// note: RFC 8785's form (members sorted, numbers and strings in one
	// spelling); for real requests the same bytes as the decode-to-any and
	// deterministic re-encode used before, in a quarter of the memory
	canonical := jsontext.Value(encoded)
	_ = canonical.Canonicalize()
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// itemErrors collects validation errors keyed by field path (items.3.confidence).
type itemErrors validation.Errors

func (errs itemErrors) add(path, code, message string) {
	if len(errs) < maxItemErrors {
		errs[path] = validation.NewError(code, message)
	}
}

// validate checks the envelope and each item and turns items into
// proposals. A non-nil error means the whole batch is refused.
func (r submissionRequest) validate() ([]enrichment.Proposal, string, validation.Errors) {
	switch {
	case len(r.Items) == 0:
		return nil, "Submission must contain at least one item.",
			validation.Errors{"items": validation.NewError("validation_required", "cannot be blank")}
	case len(r.Items) > maxItems:
		return nil, "Submission exceeds the maximum of " + strconv.Itoa(maxItems) + " items.",
			validation.Errors{"items": validation.NewError("validation_length_too_long", "must have at most 1000 items")}
	case r.ExternalSubmissionID != nil && len(*r.ExternalSubmissionID) > maxExternalIDLen:
		return nil, "externalSubmissionId is too long.",
			validation.Errors{"externalSubmissionId": validation.NewError("validation_length_too_long", "must be at most 255 characters")}
	}
	errs := itemErrors{}
	proposals := make([]enrichment.Proposal, len(r.Items))
	for i, raw := range r.Items {
		proposals[i] = parseItem(fmt.Sprintf("items.%d", i), raw, errs)
	}
	if len(errs) > 0 {
		return nil, firstMessage(validation.Errors(errs)), validation.Errors(errs)
	}
	return proposals, "", nil
}

// parseItem reads one item: sku and confidence are checked, enrichable
// fields kept when non-empty, everything else listed as ignored.
func parseItem(path string, raw jsontext.Value, errs itemErrors) enrichment.Proposal {
	var p enrichment.Proposal
	members, ok := objectMembers(raw)
	if !ok {
		errs.add(path, "validation_invalid_type", "must be an object")
		return p
	}
	hasSKU := false
	for _, m := range members {
		at := path + "." + m.name
		switch m.name {
		case "sku":
			hasSKU = json.Unmarshal(m.value, &p.SKU) == nil && m.value.Kind() == '"'
		case "confidence":
			p.Confidence = parseConfidence(at, m.value, errs)
		case "name", "slug", "description":
			parseText(at, m, &p, errs)
		case "attributes":
			parseAttributes(at, m, &p, errs)
		case "files":
			parseFiles(at, m, &p, errs)
		default:
			p.Ignored = append(p.Ignored, m.name)
		}
	}
	if !hasSKU {
		errs.add(path+".sku", "validation_required", "must be a string")
	}
	return p
}

type member struct {
	name  string
	value jsontext.Value
}

// objectMembers lists a JSON object's members in order; duplicate names are
// refused by the decoder.
func objectMembers(raw jsontext.Value) ([]member, bool) {
	if raw.Kind() != '{' {
		return nil, false
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.ReadToken(); err != nil {
		return nil, false
	}
	var out []member
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		name := tok.String() // note: before the next read, which voids the token
		value, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		out = append(out, member{name, slices.Clone(value)})
	}
	return out, true
}

func parseConfidence(path string, v jsontext.Value, errs itemErrors) *int {
	if v.Kind() == 'n' {
		return nil // null: submitted without confidence
	}
	var f float64
	if v.Kind() != '0' || json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || f < 0 || f > 100 {
		errs.add(path, "validation_invalid_confidence", "must be an integer from 0 to 100")
		return nil
	}
	n := int(f)
	return &n
}

func parseText(path string, m member, p *enrichment.Proposal, errs itemErrors) {
	if m.value.Kind() == 'n' {
		p.Ignored = append(p.Ignored, m.name)
		return
	}
	var s string
	if m.value.Kind() != '"' || json.Unmarshal(m.value, &s) != nil {
		errs.add(path, "validation_invalid_type", "must be a string")
		return
	}
	if strings.TrimSpace(s) == "" {
		p.Ignored = append(p.Ignored, m.name)
		return
	}
	switch m.name {
	case "name":
		p.Fields.Name = &s
	case "slug":
		p.Fields.Slug = &s
	case "description":
		p.Fields.Description = &s
	}
}

// submittedAttribute is an attribute as a vendor sends it.
type submittedAttribute struct {
	Attribute *string `json:"attribute"`
	Detail    *string `json:"detail"`
	Option    *struct {
		OptionID *float64 `json:"optionId"`
	} `json:"option"`
}

func parseAttributes(path string, m member, p *enrichment.Proposal, errs itemErrors) {
	var raw []jsontext.Value
	if m.value.Kind() == 'n' || (json.Unmarshal(m.value, &raw) == nil && len(raw) == 0) {
		p.Ignored = append(p.Ignored, m.name)
		return
	}
	if m.value.Kind() != '[' {
		errs.add(path, "validation_invalid_type", "must be an array of attributes")
		return
	}
	attrs := make([]enrichment.StoredAttribute, 0, len(raw))
	for i, v := range raw {
		at := fmt.Sprintf("%s.%d", path, i)
		var a submittedAttribute
		if v.Kind() != '{' || json.Unmarshal(v, &a) != nil {
			errs.add(at, "validation_invalid_type", "must be an object with attribute, detail and option")
			continue
		}
		if a.Attribute == nil || strings.TrimSpace(*a.Attribute) == "" {
			errs.add(at+".attribute", "validation_required", "must be a non-empty string")
			continue
		}
		stored := enrichment.StoredAttribute{Attribute: *a.Attribute}
		if a.Detail != nil {
			stored.Detail = *a.Detail
		}
		if a.Option != nil && a.Option.OptionID != nil {
			id := *a.Option.OptionID
			if id != math.Trunc(id) || id < 1 || id > 1<<53-1 {
				errs.add(at+".option.optionId", "validation_invalid_id", "must be a positive integer")
				continue
			}
			stored.OptionID = int64(id)
		}
		attrs = append(attrs, stored)
	}
	p.Fields.Attributes = &attrs
}

func parseFiles(path string, m member, p *enrichment.Proposal, errs itemErrors) {
	var files []jsontext.Value
	if m.value.Kind() == 'n' || (json.Unmarshal(m.value, &files) == nil && len(files) == 0) {
		p.Ignored = append(p.Ignored, m.name)
		return
	}
	if m.value.Kind() != '[' {
		errs.add(path, "validation_invalid_type", "must be an array of strings")
		return
	}
	out := make([]string, len(files))
	for i, v := range files {
		if v.Kind() != '"' || json.Unmarshal(v, &out[i]) != nil {
			errs.add(fmt.Sprintf("%s.%d", path, i), "validation_invalid_type", "must be a string")
		}
	}
	p.Fields.Files = &out
}
