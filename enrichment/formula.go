package enrichment

import (
	"slices"
	"strconv"
)

// Spreadsheets run a cell that begins like a formula (CSV injection): the
// Shopify CSV export writes such a cell behind a leading quote, which a
// spreadsheet shows as text, the import removes exactly that quote again,
// and a proposed value that begins so is flagged (docs/api.md, "Checks").

// FormulaLike reports a value that a spreadsheet would take for a formula:
// one that begins with `=`, `+`, `@`, a tab or a carriage return, or with
// `-` followed by anything but a digit (`-5` stays a number).
func FormulaLike(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '=', '+', '@', '\t', '\r':
		return true
	case '-':
		return len(s) > 1 && (s[1] < '0' || s[1] > '9')
	}
	return false
}

// escaped reports a value that EscapeFormula writes behind a quote: a
// formula-like one, or one that already begins with quotes before a
// formula-like rest (so that UnescapeFormula, removing one quote, gives
// back exactly what was escaped).
func escaped(s string) bool {
	for len(s) > 0 && s[0] == '\'' {
		s = s[1:]
	}
	return FormulaLike(s)
}

// EscapeFormula is s as the Shopify CSV export writes it: behind a leading
// `'` where a spreadsheet would run it, else as it is.
func EscapeFormula(s string) string {
	if escaped(s) {
		return "'" + s
	}
	return s
}

// UnescapeFormula undoes EscapeFormula: it removes the leading `'` of a
// cell that EscapeFormula wrote so, and leaves every other cell as it is.
func UnescapeFormula(s string) string {
	if len(s) > 1 && s[0] == '\'' && escaped(s[1:]) {
		return s[1:]
	}
	return s
}

// checkFormulas warns (formula_like) of each value p still proposes that a
// spreadsheet would run: it is kept, but the issue keeps every trust
// policy from accepting it unseen.
func checkFormulas(p *Proposal) []Issue {
	var issues []Issue
	warn := func(field string) {
		issues = append(issues, Issue{Field: field, Code: IssueFormulaLike, Severity: SeverityWarning,
			Message: "Begins like a spreadsheet formula; a Shopify CSV export writes it behind a leading quote."})
	}
	for _, f := range []struct {
		name  string
		value *string
	}{{"name", p.Fields.Name}, {"description", p.Fields.Description}} { // note: a valid slug never is
		if f.value != nil && FormulaLike(*f.value) {
			warn(f.name)
		}
	}
	if p.Fields.Attributes != nil {
		for i, a := range *p.Fields.Attributes {
			if FormulaLike(a.Attribute) || FormulaLike(a.Detail) {
				warn("attributes." + strconv.Itoa(p.attributePlace(i)))
			}
		}
	}
	if p.Fields.Files != nil && slices.ContainsFunc(*p.Fields.Files, FormulaLike) {
		warn("files") // note: the list as a whole: blank files dropped before make its indexes the submission's no more
	}
	return issues
}
