package enrichment

import (
	"slices"
	"testing"
)

func TestSlotOptionsOrder(t *testing.T) {
	got := SlotOptions([]Option{
		{ID: 1, Attribute: "Size", Priority: 2, ShowOnWebsite: true},
		{ID: 2, Attribute: "Material", Priority: 1, ShowOnWebsite: false},
		{ID: 3, Attribute: "Color", Priority: 2, ShowOnWebsite: true},
		{ID: 4, Attribute: "Width", Priority: -1, ShowOnWebsite: true},
	})
	want := []SlotOption{{4, "Width", -1, "attributes.Width"}, {3, "Color", 2, "attributes.Color"}, {1, "Size", 2, "attributes.Size"}}
	if !slices.Equal(got, want) {
		t.Fatalf("slots = %v, want %v (hidden left out; priority, then name)", got, want)
	}
}

func TestCompleteness(t *testing.T) {
	shoes := SlotOptions([]Option{{ID: 1, Attribute: "Color", Priority: 1, ShowOnWebsite: true}, {ID: 2, Attribute: "Size", Priority: 2, ShowOnWebsite: true}})
	attr := func(name, detail string, option int64) StoredAttribute {
		return StoredAttribute{Attribute: name, Detail: detail, OptionID: option}
	}
	for _, c := range []struct {
		name    string
		values  SlotValues
		options []SlotOption
		want    int
		gaps    []string
		first   GapRank
	}{
		{"nothing at all, no template: 0 of 2", SlotValues{}, nil, 0, []string{"description", "images"}, GapRank{}},
		{"full without a template: 2 of 2", SlotValues{Description: "x", Images: 1}, nil, 100, []string{}, GapRank{}},
		{"a blank description is a gap", SlotValues{Description: " \n\t", Images: 3}, nil, 50, []string{"description"}, GapRank{}},
		{"images alone missing", SlotValues{Description: "x"}, nil, 50, []string{"images"}, GapRank{Class: GapImages}},
		{"3 of 4 filled, rounded down from 75", SlotValues{Description: "x", Images: 1, Attributes: []StoredAttribute{attr("Color", "Red", 1)}},
			shoes, 75, []string{"attributes.Size"}, GapRank{Class: GapAttribute, Priority: 2, Name: "Size"}},
		{"1 of 3 is 33", SlotValues{Images: 1}, shoes[:1], 33, []string{"description", "attributes.Color"}, GapRank{}},
		{"an attribute under the option's name fills it unlinked", SlotValues{Description: "x", Images: 1,
			Attributes: []StoredAttribute{attr("Color", "Red", 0), attr("Size", "42", 0)}}, shoes, 100, []string{}, GapRank{}},
		{"an empty value fills nothing", SlotValues{Description: "x", Images: 1,
			Attributes: []StoredAttribute{attr("Color", " ", 1), attr("Size", "", 2)}}, shoes, 50,
			[]string{"attributes.Color", "attributes.Size"}, GapRank{Class: GapAttribute, Priority: 1, Name: "Color"}},
		{"linked by option id under another name", SlotValues{Description: "x", Images: 1,
			Attributes: []StoredAttribute{attr("Colour", "Red", 1)}}, shoes, 75, []string{"attributes.Size"},
			GapRank{Class: GapAttribute, Priority: 2, Name: "Size"}},
		{"free-form attributes are no slots", SlotValues{Description: "x", Images: 1,
			Attributes: []StoredAttribute{attr("Fit", "Wide", 0)}}, nil, 100, []string{}, GapRank{}},
	} {
		got := CompletenessOf(c.values, c.options)
		if got.Completeness != c.want || !slices.Equal(got.Gaps, c.gaps) || len(c.gaps) > 0 && got.First != c.first {
			t.Errorf("%s: got %d %v %+v, want %d %v %+v", c.name, got.Completeness, got.Gaps, got.First, c.want, c.gaps, c.first)
		}
	}
}

func TestIsSlot(t *testing.T) {
	for name, want := range map[string]bool{"description": true, "images": true, "attributes.Color": true,
		"attributes.": false, "attributes": false, "name": false, "Description": false, "": false} {
		if IsSlot(name) != want {
			t.Errorf("IsSlot(%q) = %v", name, !want)
		}
	}
}

// TestGapRankKeys: the keys sort as the ranks do.
func TestGapRankKeys(t *testing.T) {
	ranks := []GapRank{{Class: GapDescription}, {Class: GapImages}, {Class: GapAttribute, Priority: -5, Name: "Z"},
		{Class: GapAttribute, Priority: 0, Name: "A"}, {Class: GapAttribute, Priority: 2, Name: "Color"},
		{Class: GapAttribute, Priority: 2, Name: "Colour"}, {Class: GapAttribute, Priority: 10, Name: "A"}}
	for i := 1; i < len(ranks); i++ {
		if a, b := ranks[i-1].Key(), ranks[i].Key(); a >= b {
			t.Errorf("key of %+v (%q) does not sort before that of %+v (%q)", ranks[i-1], a, ranks[i], b)
		}
	}
}

func TestSlotsFilled(t *testing.T) {
	before := Completeness{Gaps: []string{"description", "images", "attributes.Size"}}
	after := Completeness{Gaps: []string{"images", "attributes.Color"}}
	if n := SlotsFilled(before, after); n != 2 {
		t.Errorf("filled %d, want 2 (description and Size; a new gap is no negative)", n)
	}
	m := NewFieldMask([]string{"name"}, []string{"name"}, nil) | ByPolicy
	for _, c := range []struct{ set, want int }{{0, 0}, {3, 3}, {255, 255}, {300, 255}, {-1, 0}} {
		got := m.WithSlotsFilled(c.set)
		if got.SlotsFilled() != c.want || got&^(0xff<<16) != m {
			t.Errorf("WithSlotsFilled(%d) = %b: %d filled, other bits %b", c.set, got, got.SlotsFilled(), got&^(0xff<<16))
		}
	}
	if m.WithSlotsFilled(4).Undecided().SlotsFilled() != 0 {
		t.Error("an undecided mask keeps slots filled")
	}
}
