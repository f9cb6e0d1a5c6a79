package routes

import (
	"bytes"
	"cmp"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"math"
	"strconv"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// An item's enrichable values are kept only when the product could store
// them, so that every CREATED revision can be accepted. Anything else is
// dropped and named in ignoredFields, like an empty value: a text that is
// blank, too long or holds a control character (but tab and newline); an
// attribute without a non-empty string attribute and detail, or a file that
// is blank or holds a control character, dropped on its own and named by
// its place ("attributes.2", "files.0"), the field only when none is left
// ("attributes"); a list whose JSON would not fit the product's field. A
// value of the wrong type is not dropped: the batch is refused (400).

// itemParser reads items, one at a time, reusing its decoder.
type itemParser struct {
	raw bytes.Reader
	dec jsontext.Decoder
}

// parse reads item number i: sku and confidence are checked, enrichable
// fields kept when the product could store them, everything else listed as
// ignored. Paths at fault are only spelled out when there are any.
func (ip *itemParser) parse(i int, raw jsontext.Value, errs itemErrors) enrichment.Proposal {
	var p enrichment.Proposal
	path := func(field string) string { return "items." + strconv.Itoa(i) + field }
	if raw.Kind() != '{' {
		errs.add(path(""), "validation_invalid_type", "must be an object")
		return p
	}
	// note: raw is one valid value, so no read of it can fail
	ip.raw.Reset(raw)
	dec := &ip.dec
	dec.Reset(&ip.raw)
	_, _ = dec.ReadToken()
	hasSKU := false
	var sources []sourceRead
	for dec.PeekKind() != '}' {
		tok, _ := dec.ReadToken()
		name := tok.String()
		at := func() string { return path("." + name) }
		switch name {
		case "sku":
			p.SKU, _, hasSKU = readString(dec)
		case "confidence":
			p.Confidence = parseConfidence(at, dec, errs)
		case "name", "slug", "description":
			parseText(at, name, dec, &p, errs)
		case "attributes":
			parseAttributes(at, dec, &p, errs)
		case "files":
			parseFiles(at, dec, &p, errs)
		case "model":
			m, unknown, ok := readModel(dec)
			switch {
			case unknown != "":
				errs.add(at()+"."+unknown, unknownMemberCode, unknownMemberError().Message())
			case !ok:
				errs.add(at(), "validation_invalid_model", modelRule)
			}
			p.Model = m
		case "sources":
			sources = parseSources(at, dec, errs)
		default:
			_ = dec.SkipValue()
			p.Ignored = append(p.Ignored, name)
		}
	}
	if !hasSKU {
		errs.add(path(".sku"), "validation_required", "must be a string")
	}
	keepSources(&p, sources)
	return p
}

// readString reads the next value: its text when it is a string (ok), or
// skips it and reports its kind.
func readString(dec *jsontext.Decoder) (s string, kind jsontext.Kind, ok bool) {
	kind = dec.PeekKind()
	if kind != '"' {
		_ = dec.SkipValue()
		return "", kind, false
	}
	tok, _ := dec.ReadToken()
	return tok.String(), kind, true
}

// Each parser below reads one member's value; path spells where it is, for
// an error.

func parseConfidence(path func() string, dec *jsontext.Decoder, errs itemErrors) *int {
	switch dec.PeekKind() {
	case 'n':
		_ = dec.SkipValue()
		return nil // null: submitted without confidence
	case '0':
		tok, _ := dec.ReadToken()
		if f, err := tok.Float(); err == nil && f == math.Trunc(f) && f >= 0 && f <= 100 {
			n := int(f)
			return &n
		}
	default:
		_ = dec.SkipValue()
	}
	errs.add(path(), "validation_invalid_confidence", "must be an integer from 0 to 100")
	return nil
}

// textLimits are the products' text limits, in characters.
var textLimits = map[string]int{
	"name":        enrichment.MaxProductTextLength,
	"slug":        enrichment.MaxProductTextLength,
	"description": enrichment.MaxDescriptionLength,
}

func parseText(path func() string, name string, dec *jsontext.Decoder, p *enrichment.Proposal, errs itemErrors) {
	s, kind, ok := readString(dec)
	switch {
	case kind == 'n' || (ok && !enrichment.StorableText(s, textLimits[name])):
		p.Ignored = append(p.Ignored, name)
		return
	case !ok:
		errs.add(path(), "validation_invalid_type", "must be a string")
		return
	}
	switch name {
	case "name":
		p.Fields.Name = &s
	case "slug":
		p.Fields.Slug = &s
	case "description":
		p.Fields.Description = &s
	}
}

func parseAttributes(path func() string, dec *jsontext.Decoder, p *enrichment.Proposal, errs itemErrors) {
	if !openList(path, "attributes", "must be an array of attributes", dec, p, errs) {
		return
	}
	var attrs []enrichment.StoredAttribute
	var dropped []string
	var places []int // the submitted index of each kept attribute
	for i := 0; dec.PeekKind() != ']'; i++ {
		at := func() string { return path() + "." + strconv.Itoa(i) }
		a, storable, ok := parseAttribute(at, dec, errs)
		switch {
		case !ok:
		case storable:
			attrs = append(attrs, a)
			places = append(places, i)
		default:
			dropped = append(dropped, "attributes."+strconv.Itoa(i))
		}
	}
	p.Fields.Attributes = closeList(dec, p, "attributes", attrs, dropped)
	if p.Fields.Attributes != nil && len(dropped) > 0 {
		p.AttributePlaces = places
	}
}

// parseAttribute reads one attribute element: ok is false when the batch
// must be refused (not an object, a bad option), storable when it has a
// non-empty string attribute and detail the product could store.
func parseAttribute(path func() string, dec *jsontext.Decoder, errs itemErrors) (a enrichment.StoredAttribute, storable, ok bool) {
	const wrongType = "must be an object with attribute, detail and option"
	if dec.PeekKind() != '{' {
		_ = dec.SkipValue()
		errs.add(path(), "validation_invalid_type", wrongType)
		return a, false, false
	}
	_, _ = dec.ReadToken()
	ok = true
	hasName, hasDetail := false, false
	for dec.PeekKind() != '}' {
		tok, _ := dec.ReadToken()
		switch name := tok.String(); name {
		case "attribute":
			a.Attribute, _, hasName = readString(dec)
		case "detail":
			a.Detail, _, hasDetail = readString(dec)
		case "option":
			id, fault, unknown := readOption(dec)
			switch fault {
			case "":
				a.OptionID = id
			case "type":
				errs.add(path(), "validation_invalid_type", wrongType)
				ok = false
			default:
				errs.add(path()+".option.optionId", "validation_invalid_id", "must be a positive integer")
				ok = false
			}
			if unknown != "" {
				errs.add(path()+".option."+unknown, unknownMemberCode, unknownMemberError().Message())
				ok = false
			}
		default:
			// note: an attribute is strict, as a source is; only an item's
			// own unknown fields are listed in ignoredFields
			_ = dec.SkipValue()
			errs.add(path()+"."+name, unknownMemberCode, unknownMemberError().Message())
			ok = false
		}
	}
	_, _ = dec.ReadToken()
	storable = hasName && hasDetail && enrichment.StorableEntry(a.Attribute) && enrichment.StorableEntry(a.Detail)
	return a, storable, ok
}

// readOption reads an attribute's option, null or {"optionId": N} with,
// as the export shows an option and so as a vendor may send it back, unit,
// priority, dataType and showOnWebsite (ignored): the option id (0 for
// none), or the fault: "type" for a value of the wrong type, "id" for an
// id that is not a positive integer; unknown names its first other member.
func readOption(dec *jsontext.Decoder) (id int64, fault, unknown string) {
	switch dec.PeekKind() {
	case 'n':
		_ = dec.SkipValue()
		return 0, "", ""
	case '{':
	default:
		_ = dec.SkipValue()
		return 0, "type", ""
	}
	_, _ = dec.ReadToken()
	for dec.PeekKind() != '}' {
		tok, _ := dec.ReadToken()
		switch name := tok.String(); name {
		case "optionId":
		case "unit", "priority", "dataType", "showOnWebsite":
			_ = dec.SkipValue()
			continue
		default:
			_ = dec.SkipValue()
			unknown = cmp.Or(unknown, name)
			continue
		}
		switch dec.PeekKind() {
		case 'n':
			_ = dec.SkipValue()
		case '0':
			tok, _ := dec.ReadToken()
			f, err := tok.Float()
			if err != nil || f != math.Trunc(f) || f < 1 || f > 1<<53-1 {
				fault = "id"
			}
			id = int64(f)
		default:
			_ = dec.SkipValue()
			fault = "type"
		}
	}
	_, _ = dec.ReadToken()
	if fault != "" {
		return 0, fault, unknown
	}
	return id, "", unknown
}

func parseFiles(path func() string, dec *jsontext.Decoder, p *enrichment.Proposal, errs itemErrors) {
	if !openList(path, "files", "must be an array of strings", dec, p, errs) {
		return
	}
	var files, dropped []string
	for i := 0; dec.PeekKind() != ']'; i++ {
		s, _, ok := readString(dec)
		switch {
		case !ok:
			errs.add(path()+"."+strconv.Itoa(i), "validation_invalid_type", "must be a string")
		case enrichment.StorableEntry(s):
			files = append(files, s)
		default:
			dropped = append(dropped, "files."+strconv.Itoa(i))
		}
	}
	p.Fields.Files = closeList(dec, p, "files", files, dropped)
}

// closeList ends an enrichable list whose storable elements are kept: nil
// with the whole field ignored when none is, or when together they exceed
// what the product's field holds; else kept, with the elements dropped
// listed as ignored.
func closeList[T any](dec *jsontext.Decoder, p *enrichment.Proposal, name string, kept []T, dropped []string) *[]T {
	_, _ = dec.ReadToken()
	if len(kept) == 0 || !fitsJSONField(kept) {
		p.Ignored = append(p.Ignored, name)
		return nil
	}
	p.Ignored = append(p.Ignored, dropped...)
	return &kept
}

// openList starts reading an enrichable list: false when there is nothing
// to read, because it is null or empty (ignored) or not a list (refused).
func openList(path func() string, name, wrongType string, dec *jsontext.Decoder, p *enrichment.Proposal, errs itemErrors) bool {
	switch dec.PeekKind() {
	case '[':
		_, _ = dec.ReadToken()
		if dec.PeekKind() != ']' {
			return true
		}
		_, _ = dec.ReadToken()
		p.Ignored = append(p.Ignored, name)
	case 'n':
		_ = dec.SkipValue()
		p.Ignored = append(p.Ignored, name)
	default:
		_ = dec.SkipValue()
		errs.add(path(), "validation_invalid_type", wrongType)
	}
	return false
}

// fitsJSONField reports whether v, encoded as a product stores it, fits
// the product's JSON field.
func fitsJSONField(v any) bool {
	var n byteCounter
	return json.MarshalWrite(&n, v) == nil && n <= enrichment.MaxJSONFieldSize
}

// byteCounter is a writer that only counts.
type byteCounter int

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}
