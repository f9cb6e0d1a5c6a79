package routes

import (
	"cmp"
	"encoding/json/jsontext"
	"strconv"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// A submission's model (of the batch, or of an item, which replaces it) is
// null or {"name", "version"}, strings of 1..100 characters; anything else
// refuses the batch, and so does a member other than those two. An item's
// sources are null or a list; a member of a source other than field, url
// and quote refuses the batch, and a source that breaks the rules is
// dropped with warning invalid_source, its place sources.N; sources past
// the tenth are dropped each with its own warning. The server never
// fetches a source.

// modelRule is the validation message of a malformed model.
const modelRule = "must be null or an object with name and version, strings of 1 to 100 characters"

// readModel reads a model: nil for null, ok false when it is malformed;
// unknown names its first member other than name and version (the model
// is strict).
func readModel(dec *jsontext.Decoder) (m *enrichment.Model, unknown string, ok bool) {
	switch dec.PeekKind() {
	case 'n':
		_ = dec.SkipValue()
		return nil, "", true
	case '{':
	default:
		_ = dec.SkipValue()
		return nil, "", false
	}
	_, _ = dec.ReadToken()
	var model enrichment.Model
	hasName, hasVersion := false, false
	for dec.PeekKind() != '}' {
		tok, _ := dec.ReadToken()
		switch name := tok.String(); name {
		case "name":
			model.Name, _, hasName = readString(dec)
		case "version":
			model.Version, _, hasVersion = readString(dec)
		default:
			_ = dec.SkipValue()
			unknown = cmp.Or(unknown, name)
		}
	}
	_, _ = dec.ReadToken()
	ok = hasName && hasVersion && enrichment.ValidModelText(model.Name) && enrichment.ValidModelText(model.Version)
	if !ok || unknown != "" {
		return nil, unknown, ok
	}
	return &model, "", true
}

// sourceRead is one submitted source as read, before it is checked against
// the item's fields (which may come after it).
type sourceRead struct {
	source enrichment.Source
	fault  string // what is wrong with its shape, "" when nothing
}

// parseSources reads an item's sources; a value that is not a list (or
// null) refuses the batch.
func parseSources(path func() string, dec *jsontext.Decoder, errs itemErrors) []sourceRead {
	switch dec.PeekKind() {
	case 'n':
		_ = dec.SkipValue()
		return nil
	case '[':
	default:
		_ = dec.SkipValue()
		errs.add(path(), "validation_invalid_type", "must be an array of sources")
		return nil
	}
	_, _ = dec.ReadToken()
	var out []sourceRead
	for i := 0; dec.PeekKind() != ']'; i++ {
		if i >= enrichment.MaxSources {
			_ = dec.SkipValue()
			out = append(out, sourceRead{fault: "An item has at most 10 sources."})
			continue
		}
		r, unknown := readSource(dec)
		if unknown != "" {
			errs.add(path()+"."+strconv.Itoa(i)+"."+unknown, unknownMemberCode, unknownMemberError().Message())
		}
		out = append(out, r)
	}
	_, _ = dec.ReadToken()
	return out
}

// readSource reads one source: an object whose field and url are strings
// and whose quote, if any, is a string or null; unknown names its first
// other member (a source is strict).
func readSource(dec *jsontext.Decoder) (r sourceRead, unknown string) {
	const shape = "A source is an object with field and url, and optionally quote, strings."
	if dec.PeekKind() != '{' {
		_ = dec.SkipValue()
		return sourceRead{fault: shape}, ""
	}
	_, _ = dec.ReadToken()
	hasField, hasURL, quoteOK := false, false, true
	for dec.PeekKind() != '}' {
		tok, _ := dec.ReadToken()
		switch name := tok.String(); name {
		case "field":
			r.source.Field, _, hasField = readString(dec)
		case "url":
			r.source.URL, _, hasURL = readString(dec)
		case "quote":
			var kind jsontext.Kind
			r.source.Quote, kind, quoteOK = readString(dec)
			quoteOK = quoteOK || kind == 'n'
		default:
			_ = dec.SkipValue()
			unknown = cmp.Or(unknown, name)
		}
	}
	_, _ = dec.ReadToken()
	if !hasField || !hasURL || !quoteOK {
		r.fault = shape
	}
	return r, unknown
}

// keepSources keeps those of an item's sources that support a field it
// proposes, and warns about the others.
func keepSources(p *enrichment.Proposal, sources []sourceRead) {
	for i, r := range sources {
		fault := r.fault
		if fault == "" {
			fault = enrichment.SourceFault(r.source, p.Fields)
		}
		if fault != "" {
			p.Issues = append(p.Issues, enrichment.InvalidSource(i, fault))
			continue
		}
		p.Sources, p.SourcePlaces = append(p.Sources, r.source), append(p.SourcePlaces, i)
	}
}
