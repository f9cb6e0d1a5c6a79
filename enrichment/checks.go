package enrichment

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The checks a submitted item passes before a reviewer sees it
// (docs/api.md, "Checks"). Each finding is an Issue naming the place as
// ignoredFields does. An error drops the value and lists its place in
// ignoredFields; a warning keeps it, normalized where the check says so.

// Issue severities.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Issue codes, what each check found.
const (
	IssueNotANumber    = "not_a_number"    // error: a NUMBER option's detail is no decimal number
	IssueUnitRemoved   = "unit_removed"    // warning: the option's unit was removed from a number
	IssueNotABoolean   = "not_a_boolean"   // error: a BOOLEAN option's detail is no yes or no
	IssueNormalized    = "normalized"      // warning: a boolean was respelled true or false
	IssueRenamed       = "renamed"         // warning: an attribute name respelled as its option's
	IssueNotInTemplate = "not_in_template" // warning: an attribute name that matches no option
	IssueInvalidSlug   = "invalid_slug"    // error: a slug that is not lowercase words joined by hyphens
	IssueSlugInUse     = "slug_in_use"     // warning: another product of the organization has the slug
	IssueUnchanged     = "unchanged"       // warning: the value is the product's current one, dropped
	IssueInvalidSource = "invalid_source"  // warning: a source that breaks the rules, dropped
	IssueFormulaLike   = "formula_like"    // warning: a value that begins like a spreadsheet formula
)

// MaxIssuesPerItem bounds the issues listed for one item (the first ones,
// in field order): an item of thousands of attributes must not answer, or
// store, an issue for each. What an error drops is in ignoredFields all the
// same.
const MaxIssuesPerItem = 50

// IssueCodes lists every issue code, in the order they are documented.
var IssueCodes = []string{IssueNotANumber, IssueUnitRemoved, IssueNotABoolean, IssueNormalized, IssueRenamed,
	IssueNotInTemplate, IssueInvalidSlug, IssueSlugInUse, IssueUnchanged, IssueInvalidSource, IssueFormulaLike}

// Option data types the checks know.
const (
	DataTypeNumber  = "NUMBER"
	DataTypeBoolean = "BOOLEAN"
)

// Issue is one finding of the checks about a submitted item.
type Issue struct {
	Field    string `json:"field"`
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// CheckOption is what the checks need of a template option.
type CheckOption struct {
	ID       int64
	Name     string
	Unit     string
	DataType string
}

// CheckProduct is the matched product as the checks see it: its current
// values and the options of its attribute template (none without one).
type CheckProduct struct {
	Name, Slug, Description string
	Attributes              []StoredAttribute
	Files                   []string
	Options                 []CheckOption
	// SlugInUse: another product of the organization has the proposed slug.
	SlugInUse bool
}

// CheckNumber checks a NUMBER option's detail: the number as it is stored
// (without the unit), the issue code (unit_removed, not_a_number, or "").
func CheckNumber(detail, unit string) (string, string) {
	if isDecimal(detail) {
		return detail, ""
	}
	if unit != "" {
		if number, ok := strings.CutSuffix(detail, unit); ok {
			trimmed := strings.TrimRightFunc(number, unicode.IsSpace)
			if len(trimmed) < len(number) && isDecimal(trimmed) {
				return trimmed, IssueUnitRemoved
			}
		}
	}
	return detail, IssueNotANumber
}

// isDecimal reports whether s is an optional minus, digits, and optionally a
// dot and digits.
func isDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	whole, fraction, dotted := strings.Cut(s, ".")
	return allDigits(whole) && (!dotted || allDigits(fraction))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// CheckBoolean checks a BOOLEAN option's detail: "true" or "false" as it is
// stored, and the issue code (normalized, not_a_boolean, or "").
func CheckBoolean(detail string) (string, string) {
	var value string
	switch {
	case strings.EqualFold(detail, "true"), strings.EqualFold(detail, "yes"), detail == "1":
		value = "true"
	case strings.EqualFold(detail, "false"), strings.EqualFold(detail, "no"), detail == "0":
		value = "false"
	default:
		return detail, IssueNotABoolean
	}
	if value != detail {
		return value, IssueNormalized
	}
	return value, ""
}

// ValidSlug reports whether s is lowercase letters and digits in groups
// joined by single hyphens.
func ValidSlug(s string) bool {
	if s == "" {
		return false
	}
	for _, group := range strings.Split(s, "-") {
		if group == "" {
			return false
		}
		for i := 0; i < len(group); i++ {
			if c := group[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

// CheckSlug checks a proposed slug on its own, without a product: an
// invalid_slug error, or nothing.
func CheckSlug(p *Proposal) []Issue {
	if p.Fields.Slug == nil || ValidSlug(*p.Fields.Slug) {
		return nil
	}
	p.Fields.Slug = nil
	p.Ignored = append(p.Ignored, "slug")
	return []Issue{{Field: "slug", Code: IssueInvalidSlug, Severity: SeverityError,
		Message: "A slug is lowercase letters and digits in groups joined by single hyphens."}}
}

// CheckProposal runs the checks against the matched product on p, which it
// changes: values normalized, values dropped (errors and unchanged ones)
// and their places added to p.Ignored. It returns what it found, in the
// order of the fields. The slug's own pattern is checked by CheckSlug first.
func CheckProposal(p *Proposal, product CheckProduct) []Issue {
	var issues []Issue
	drop := func(field string) {
		p.Ignored = append(p.Ignored, field)
		issues = append(issues, Issue{Field: field, Code: IssueUnchanged, Severity: SeverityWarning,
			Message: "The product already has this value; it was left out."})
	}
	if p.Fields.Name != nil && *p.Fields.Name == product.Name {
		p.Fields.Name = nil
		drop("name")
	}
	if p.Fields.Slug != nil {
		switch {
		case *p.Fields.Slug == product.Slug:
			p.Fields.Slug = nil
			drop("slug")
		case product.SlugInUse:
			issues = append(issues, Issue{Field: "slug", Code: IssueSlugInUse, Severity: SeverityWarning,
				Message: "Another product of the organization has this slug."})
		}
	}
	if p.Fields.Description != nil && *p.Fields.Description == product.Description {
		p.Fields.Description = nil
		drop("description")
	}
	if p.Fields.Attributes != nil {
		issues = append(issues, checkAttributes(p, product)...)
	}
	if p.Fields.Files != nil && slices.Equal(*p.Fields.Files, product.Files) {
		p.Fields.Files = nil
		drop("files")
	}
	return append(issues, checkFormulas(p)...)
}

// checkAttributes checks each proposed attribute against the template's
// options and the product's attributes, keeping the ones left.
func checkAttributes(p *Proposal, product CheckProduct) []Issue {
	var issues []Issue
	attrs := *p.Fields.Attributes
	kept := attrs[:0]
	var places []int
	for i, a := range attrs {
		place := "attributes." + strconv.Itoa(p.attributePlace(i))
		issue := func(code, severity, message string) {
			issues = append(issues, Issue{Field: place, Code: code, Severity: severity, Message: message})
		}
		option, found := matchOption(a.Attribute, product.Options)
		switch {
		case !found:
			issue(IssueNotInTemplate, SeverityWarning, "No option of the product's attribute template is called "+quoteShort(a.Attribute)+"; kept as a free-form attribute.")
		case option.Name != a.Attribute:
			issue(IssueRenamed, SeverityWarning, "Renamed to "+strconv.Quote(option.Name)+", as the template spells it, and linked to that option.")
			p.renameSources(a.Attribute, option.Name)
			a.Attribute, a.OptionID = option.Name, option.ID
		}
		code := ""
		switch strings.ToUpper(option.DataType) {
		case DataTypeNumber:
			a.Detail, code = CheckNumber(a.Detail, option.Unit)
		case DataTypeBoolean:
			a.Detail, code = CheckBoolean(a.Detail)
		}
		switch code {
		case IssueNotANumber:
			issue(code, SeverityError, "A number is an optional minus, digits, and optionally a dot and digits"+unitHint(option.Unit)+".")
			p.Ignored = append(p.Ignored, place)
			continue
		case IssueNotABoolean:
			issue(code, SeverityError, "A yes or no is one of true, false, yes, no, 1 or 0.")
			p.Ignored = append(p.Ignored, place)
			continue
		case IssueUnitRemoved:
			issue(code, SeverityWarning, "Stored as "+quoteShort(a.Detail)+", without the unit.")
		case IssueNormalized:
			issue(code, SeverityWarning, "Stored as "+strconv.Quote(a.Detail)+".")
		}
		if hasAttribute(product.Attributes, a) {
			issue(IssueUnchanged, SeverityWarning, "The product already has this value; it was left out.")
			p.Ignored = append(p.Ignored, place)
			continue
		}
		kept = append(kept, a)
		places = append(places, p.attributePlace(i))
	}
	if len(kept) == 0 {
		p.Fields.Attributes, p.AttributePlaces = nil, nil
	} else {
		*p.Fields.Attributes, p.AttributePlaces = kept, places
	}
	return issues
}

// quoteShort quotes s for a message, cut after 100 characters: a message
// stays short whatever was submitted.
func quoteShort(s string) string {
	if utf8.RuneCountInString(s) <= 100 {
		return strconv.Quote(s)
	}
	return strconv.Quote(string([]rune(s)[:100]) + "…")
}

func unitHint(unit string) string {
	if unit == "" {
		return ""
	}
	return ", followed by a space and " + strconv.Quote(unit)
}

// matchOption finds the option called name, exactly or else but for
// letter case.
func matchOption(name string, options []CheckOption) (CheckOption, bool) {
	for _, o := range options {
		if o.Name == name {
			return o, true
		}
	}
	for _, o := range options {
		if strings.EqualFold(o.Name, name) {
			return o, true
		}
	}
	return CheckOption{}, false
}

// hasAttribute reports whether the product has attribute a's name with a's
// detail.
func hasAttribute(attrs []StoredAttribute, a StoredAttribute) bool {
	for _, have := range attrs {
		if have.Attribute == a.Attribute && have.Detail == a.Detail {
			return true
		}
	}
	return false
}
