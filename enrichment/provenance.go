package enrichment

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Evidence and provenance of a proposal: the model that made it and the
// sources a vendor cites for its values. The server stores and shows them;
// it never fetches a source.

// Limits of a proposal's model and sources, in characters.
const (
	MaxModelTextLength = 100  // a model's name and version
	MaxSources         = 10   // sources of one item
	MaxSourceURLLength = 2000 // a source's url
	MaxQuoteLength     = 1000 // a source's quote
	MaxSourceField     = 1000 // a source's field (attributes.NAME)
)

// Model names the model, and its version, that made a proposal.
type Model struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ValidModelText reports whether s may be a model's name or version.
func ValidModelText(s string) bool {
	n := utf8.RuneCountInString(s)
	return n >= 1 && n <= MaxModelTextLength
}

// Source is a vendor's evidence for one proposed field or attribute.
type Source struct {
	Field string `json:"field"` // a proposed field, or attributes.NAME
	URL   string `json:"url"`
	Quote string `json:"quote,omitzero"`
}

// SourceFault says what is wrong with source s of a proposal of fields, ""
// when nothing is.
func SourceFault(s Source, fields Fields) string {
	switch {
	case utf8.RuneCountInString(s.Field) > MaxSourceField || !sourceField(s.Field, fields):
		return "Its field is not one the item proposes."
	case utf8.RuneCountInString(s.URL) > MaxSourceURLLength || !absoluteHTTP(s.URL):
		return "Its url is not an absolute http or https URL of at most 2000 characters."
	case utf8.RuneCountInString(s.Quote) > MaxQuoteLength:
		return "Its quote is longer than 1000 characters."
	}
	return ""
}

// InvalidSource is the warning about the source at index i, dropped.
func InvalidSource(i int, why string) Issue {
	return Issue{Field: "sources." + strconv.Itoa(i), Code: IssueInvalidSource, Severity: SeverityWarning,
		Message: "The source was left out: " + why}
}

// DropUnsupportedSources drops, once the checks ran, each source whose
// field a check dropped (an error, or a value unchanged), with warning
// invalid_source at its place: a source supports a field the item still
// proposes.
func DropUnsupportedSources(p *Proposal) {
	unsupported := func(s Source) bool { return !sourceField(s.Field, p.Fields) }
	if !slices.ContainsFunc(p.Sources, unsupported) {
		return // note: nearly always; nothing to copy
	}
	var kept []Source
	var places []int
	for k, s := range p.Sources {
		if unsupported(s) {
			p.Issues = append(p.Issues, InvalidSource(p.sourcePlace(k), "Its field is no longer proposed: a check left it out."))
			continue
		}
		kept, places = append(kept, s), append(places, p.sourcePlace(k))
	}
	p.Sources, p.SourcePlaces = kept, places
}

// sourceField reports whether field names a field of fields, or one of its
// attributes as attributes.NAME.
func sourceField(field string, fields Fields) bool {
	if name, ok := strings.CutPrefix(field, "attributes."); ok {
		if fields.Attributes == nil {
			return false
		}
		for _, a := range *fields.Attributes {
			if a.Attribute == name {
				return true
			}
		}
		return false
	}
	return fields.Has(field)
}

// absoluteHTTP reports whether s is an absolute http or https URL with a
// host.
func absoluteHTTP(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

// renameSources respells the sources of attribute from as attribute to.
func (p *Proposal) renameSources(from, to string) {
	for i := range p.Sources {
		if p.Sources[i].Field == "attributes."+from {
			p.Sources[i].Field = "attributes." + to
		}
	}
}
