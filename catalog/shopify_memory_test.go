package catalog

import "testing"

// TestStatusColumns: Status and Published come back as imported while the
// product is as active as it was then, else from whether it is active.
func TestStatusColumns(t *testing.T) {
	yes, no, falseCell, empty, archived := true, false, "FALSE", "", "archived"
	rows := []struct {
		name              string
		active            bool
		mem               *shopifyMemory
		status, published string
	}{
		{"nothing remembered, active", true, nil, "active", "TRUE"},
		{"nothing remembered, inactive", false, nil, "draft", "FALSE"},
		{"active, not published", true, &shopifyMemory{Active: &yes, Published: &falseCell}, "active", "FALSE"},
		{"archived", false, &shopifyMemory{Active: &no, Status: &archived}, "archived", "FALSE"},
		{"archived, active since", true, &shopifyMemory{Active: &no, Status: &archived}, "active", "TRUE"},
		{"an empty Status cell, not published", false, &shopifyMemory{Active: &no, Status: &empty}, "", "FALSE"},
		{"not published, inactive since", false, &shopifyMemory{Active: &yes, Published: &falseCell}, "draft", "FALSE"},
		{"an empty Published cell", true, &shopifyMemory{Active: &yes, Published: &empty}, "active", ""},
		{"only other things remembered", false, &shopifyMemory{Category: "Uncategorized"}, "draft", "FALSE"},
	}
	for _, r := range rows {
		status, published := statusColumns(r.active, r.mem)
		if status != r.status || published != r.published {
			t.Errorf("%s: %q %q, want %q %q", r.name, status, published, r.status, r.published)
		}
	}
}

// TestCategoryColumns: categories go back to the columns they came from
// while they are the product's, else by the fallback rule.
func TestCategoryColumns(t *testing.T) {
	rows := []struct {
		name        string
		categories  []string
		mem         *shopifyMemory
		category, t string
	}{
		{"a taxonomy path", []string{"A > B"}, nil, "A > B", ""},
		{"one word", []string{"Uncategorized"}, nil, "", "Uncategorized"},
		{"two", []string{"A > B", "Shirts"}, nil, "A > B", "Shirts"},
		{"remembered in Product Category", []string{"Uncategorized"}, &shopifyMemory{Category: "Uncategorized"}, "Uncategorized", ""},
		{"a type with a path in it", []string{"Tools > Hand"}, &shopifyMemory{Type: "Tools > Hand"}, "", "Tools > Hand"},
		{"changed since", []string{"Mugs"}, &shopifyMemory{Category: "Uncategorized"}, "", "Mugs"},
	}
	for _, r := range rows {
		category, typ := categoryColumns(r.categories, r.mem)
		if category != r.category || typ != r.t {
			t.Errorf("%s: %q %q, want %q %q", r.name, category, typ, r.category, r.t)
		}
	}
}

func TestCustomKey(t *testing.T) {
	for name, want := range map[string]string{
		"Material": "custom.material", "Åldersgrupp": "custom._ldersgrupp", "Care instructions": "custom.care_instructions",
		"shopify.color-pattern": "custom.shopify_color-pattern", "Größe (EU)": "custom.gr__e__eu_", "fit_2": "custom.fit_2",
	} {
		if got := customKey(name); got != want {
			t.Errorf("customKey(%q) = %q, want %q", name, got, want)
		}
	}
}
