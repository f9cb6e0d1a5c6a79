package enrichment

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A product's slots are what its shop page shows: its description, its
// images (one slot: at least one image), and each option of its attribute
// template shown on the website (attributes.NAME). A slot is filled when
// the product holds a non-empty value for it; its gaps are the unfilled
// slots, most important first.

// The two slots every product has.
const (
	SlotDescription = "description"
	SlotImages      = "images"
	// SlotAttributePrefix starts the slot of a template option.
	SlotAttributePrefix = "attributes."
)

// SlotOption is a template option that is a slot: one shown on the website.
type SlotOption struct {
	ID        int64
	Attribute string
	Priority  int
	Slot      string // attributes.NAME
}

// SlotOptions keeps, in the order their gaps are listed (priority, then
// name), the options of a template that are slots.
func SlotOptions(options []Option) []SlotOption {
	slots := []SlotOption{}
	for _, o := range options {
		if o.ShowOnWebsite {
			slots = append(slots, SlotOption{ID: o.ID, Attribute: o.Attribute, Priority: o.Priority, Slot: SlotAttributePrefix + o.Attribute})
		}
	}
	slices.SortFunc(slots, func(a, b SlotOption) int {
		return cmp.Or(cmp.Compare(a.Priority, b.Priority), strings.Compare(a.Attribute, b.Attribute))
	})
	return slots
}

// SlotValues is what of a product fills slots.
type SlotValues struct {
	Description string
	Images      int // how many
	Attributes  []StoredAttribute
}

// Completeness is a product's completeness and gaps.
type Completeness struct {
	Completeness int      `json:"completeness"`
	Gaps         []string `json:"gaps"`
	// First is the most important gap's place in the order of all gaps
	// (meaningless without gaps): the gaps list orders its products by it.
	First GapRank `json:"-"`
}

// GapRank orders gaps across products: description, then images, then
// attributes by their template's priority and by name.
type GapRank struct {
	Class    int // 0 description, 1 images, 2 an attribute
	Priority int
	Name     string
}

// Key renders r as text that sorts as the ranks do (the gaps list's index
// orders on it): the class, then for an attribute its priority as 20
// digits (signed order kept) and its name.
func (r GapRank) Key() string {
	if r.Class != GapAttribute {
		return strconv.Itoa(r.Class)
	}
	// note: by hand, as fmt costs the import a measurable share
	key := make([]byte, 0, 21+len(r.Name))
	key = strconv.AppendInt(key, int64(r.Class), 10)
	digits := strconv.FormatUint(uint64(int64(r.Priority))^(1<<63), 10)
	for range 20 - len(digits) {
		key = append(key, '0')
	}
	return string(append(append(key, digits...), r.Name...))
}

// Gap classes, in order.
const (
	GapDescription = iota
	GapImages
	GapAttribute
)

// CompletenessOf measures v against the slot options of its template
// (SlotOptions; none without a template): filled slots / slots × 100,
// rounded down, 100 for a product with no slot.
func CompletenessOf(v SlotValues, options []SlotOption) Completeness {
	c := Completeness{Gaps: make([]string, 0, 2+len(options))}
	if isBlank(v.Description) {
		c.Gaps = append(c.Gaps, SlotDescription)
		c.First = GapRank{Class: GapDescription}
	}
	if v.Images == 0 {
		if len(c.Gaps) == 0 {
			c.First = GapRank{Class: GapImages}
		}
		c.Gaps = append(c.Gaps, SlotImages)
	}
	for _, o := range options {
		if filledOption(v.Attributes, o) {
			continue
		}
		if len(c.Gaps) == 0 {
			c.First = GapRank{Class: GapAttribute, Priority: o.Priority, Name: o.Attribute}
		}
		c.Gaps = append(c.Gaps, o.Slot)
	}
	slots := 2 + len(options)
	c.Completeness = (slots - len(c.Gaps)) * 100 / slots
	return c
}

// filledOption reports whether attrs hold a non-empty value for o, linked
// to it or under its name.
func filledOption(attrs []StoredAttribute, o SlotOption) bool {
	for _, a := range attrs {
		if (a.OptionID == o.ID && o.ID != 0 || a.Attribute == o.Attribute) && !isBlank(a.Detail) {
			return true
		}
	}
	return false
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// IsSlot reports whether name is a slot's name in the gaps list's filter:
// description, images or attributes.NAME.
func IsSlot(name string) bool {
	return name == SlotDescription || name == SlotImages ||
		strings.HasPrefix(name, SlotAttributePrefix) && len(name) > len(SlotAttributePrefix)
}

// GapItem is a product in the gaps list.
type GapItem struct {
	ID           int64    `json:"id"`
	SKU          string   `json:"sku"`
	Name         string   `json:"name"`
	Completeness int      `json:"completeness"`
	Gaps         []string `json:"gaps"`
}

// SlotsFilled is how many of before's gaps after no longer has: what a
// decision that turned the one into the other filled.
func SlotsFilled(before, after Completeness) int {
	n := 0
	for _, g := range before.Gaps {
		if !slices.Contains(after.Gaps, g) {
			n++
		}
	}
	return n
}

// CompletenessOverview is an organization's completeness (or several
// organizations' together) in the reviewers' overview.
type CompletenessOverview struct {
	Completeness float64           `json:"completeness"` // the mean over active products, 0..100
	Products     int               `json:"products"`     // active products
	History      []CompletenessDay `json:"history"`      // by day, oldest first, today included
}

// CompletenessDay is the completeness of one day (its last measure).
type CompletenessDay struct {
	Day          string  `json:"day" db:"day"` // YYYY-MM-DD, UTC
	Completeness float64 `json:"completeness" db:"completeness"`
	Products     int     `json:"products" db:"products"`
}

// Add adds o's products to c, the completeness weighted by products,
// day by day.
func (c *CompletenessOverview) Add(o CompletenessOverview) {
	weigh := func(a float64, na int, b float64, nb int) float64 {
		if na+nb == 0 {
			return 0
		}
		return (a*float64(na) + b*float64(nb)) / float64(na+nb)
	}
	c.Completeness = weigh(c.Completeness, c.Products, o.Completeness, o.Products)
	c.Products += o.Products
	byDay := map[string]int{}
	for i, d := range c.History {
		byDay[d.Day] = i
	}
	for _, d := range o.History {
		i, ok := byDay[d.Day]
		if !ok {
			c.History = append(c.History, d)
			byDay[d.Day] = len(c.History) - 1
			continue
		}
		h := &c.History[i]
		h.Completeness, h.Products = weigh(h.Completeness, h.Products, d.Completeness, d.Products), h.Products+d.Products
	}
	slices.SortFunc(c.History, func(a, b CompletenessDay) int { return strings.Compare(a.Day, b.Day) })
}

// Rounded is c with its figures to a tenth, as the overview gives them.
func (c CompletenessOverview) Rounded() CompletenessOverview {
	c.Completeness = RoundTenth(c.Completeness)
	for i := range c.History {
		c.History[i].Completeness = RoundTenth(c.History[i].Completeness)
	}
	return c
}

// RoundTenth rounds a completeness to a tenth.
func RoundTenth(x float64) float64 { return math.Round(x*10) / 10 }
