package enrichment

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxJSONFieldSize is how many bytes of JSON a product's attributes or files
// can hold (PocketBase's default for a JSON field).
const MaxJSONFieldSize = 1 << 20

// StorableText reports whether a product's text field of at most max
// characters can take s: it is not blank, fits, and has no control
// character but tab and newline. A proposal drops any other value, so that
// every stored revision can be accepted.
func StorableText(s string, max int) bool {
	return strings.TrimSpace(s) != "" && fits(s, max) && !hasControl(s)
}

// StorableEntry reports whether an element of a product's list (an
// attribute's name or detail, a file) can take s: not blank, no control
// character but tab and newline. The list's size is checked as a whole.
func StorableEntry(s string) bool {
	return strings.TrimSpace(s) != "" && !hasControl(s)
}

// fits reports whether s has at most max characters, as PocketBase counts
// them (runes).
func fits(s string, max int) bool {
	return len(s) <= max || utf8.RuneCountInString(s) <= max
}

// hasControl reports whether s holds a control character other than tab
// and newline (NUL, carriage return, escape, the C1 controls, ...).
func hasControl(s string) bool {
	for _, r := range s {
		if r != '\t' && r != '\n' && unicode.IsControl(r) {
			return true
		}
	}
	return false
}
