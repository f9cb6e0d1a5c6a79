package enrichment

import (
	"encoding/json/v2"
	"slices"
	"strings"
)

// Selection is an API client's catalog: the active products its keys see.
// A product is selected when it matches every list that is not empty: its
// template is one of Templates, its brand one of Brands, and one of its
// categories one of Categories. All empty is the whole catalog. Templates
// and brands are kept as ids (names are resolved when the selection is
// saved), categories as names.
type Selection struct {
	Templates  []string `json:"templates"`
	Brands     []string `json:"brands"`
	Categories []string `json:"categories"`
}

// Whole reports whether s selects the whole catalog.
func (s Selection) Whole() bool {
	return len(s.Templates) == 0 && len(s.Brands) == 0 && len(s.Categories) == 0
}

// Holds reports whether s selects a product of that template, brand (ids,
// "" for none) and categories.
func (s Selection) Holds(template, brand string, categories []string) bool {
	if len(s.Templates) > 0 && !slices.Contains(s.Templates, template) {
		return false
	}
	if len(s.Brands) > 0 && !slices.Contains(s.Brands, brand) {
		return false
	}
	if len(s.Categories) > 0 && !slices.ContainsFunc(categories, func(c string) bool { return slices.Contains(s.Categories, c) }) {
		return false
	}
	return true
}

// Normalized is s with each list sorted and without repeats (never nil),
// so equal selections compare and hash equal.
func (s Selection) Normalized() Selection {
	norm := func(l []string) []string {
		out := slices.Clone(l)
		slices.Sort(out)
		return append([]string{}, slices.Compact(out)...)
	}
	return Selection{Templates: norm(s.Templates), Brands: norm(s.Brands), Categories: norm(s.Categories)}
}

// Key is a text that tells selections apart, for caches and tags: "" for
// the whole catalog.
func (s Selection) Key() string {
	if s.Whole() {
		return ""
	}
	n := s.Normalized()
	// note: a NUL separates, as no stored id or category name holds one
	return strings.Join(n.Templates, "\x00") + "\x01" + strings.Join(n.Brands, "\x00") + "\x01" + strings.Join(n.Categories, "\x00")
}

// SelectionOf reads a selection as stored (JSON; null, nothing or bad
// JSON: the whole catalog), normalized.
func SelectionOf(raw []byte) Selection {
	var sel Selection
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &sel)
	}
	return sel.Normalized()
}
