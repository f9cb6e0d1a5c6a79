package catalog

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"strconv"
	"strings"
)

// A product imported from a Shopify CSV remembers (products.shopify) what
// the Shopify CSV export must write back exactly as it was, and the
// service does not hold otherwise: Status and Published as the file had
// them, the cells of Product Category and Type, the variant's own Variant
// Image, and each metafield attribute's column (label and NS.KEY). A
// handle's first variant (the family's master) holds the product's part,
// every variant its Variant Image. The export uses what is remembered only
// while it still describes the product (docs/catalog-format.md, "Export").
//
// Only what the export would not write anyway is remembered (a Status of
// active on an active product, a metafield custom.KEY of the attribute's
// own name, ...): so importing the export again remembers the same, and
// changes nothing.

// shopifyMemory is products.shopify, decoded.
type shopifyMemory struct {
	// Active is whether the product was imported active, given with a
	// Status or Published that is remembered: they are written back only
	// while it still is.
	Active    *bool   `json:"active,omitzero"`
	Status    *string `json:"status,omitzero"` // note: "" is a blank cell, kept blank
	Published *string `json:"published,omitzero"`
	Category  string  `json:"category,omitzero"`
	Type      string  `json:"type,omitzero"`
	// Metafields are the product's attributes that came from metafield
	// columns, with their column.
	Metafields []rememberedMetafield `json:"metafields,omitzero"`
	// VariantImage is the variant's Variant Image; ownImage: it is not one
	// of the product's images (Image Src), so the import added it to the
	// variant's images.
	VariantImage string `json:"variantImage,omitzero"`
	OwnImage     bool   `json:"ownImage,omitzero"`
}

// rememberedMetafield is an attribute and the metafield column it came
// from: "Label (product.metafields.KEY)", KEY being NS.KEY.
type rememberedMetafield struct {
	Attribute string `json:"attribute"`
	Label     string `json:"label"`
	Key       string `json:"key"`
}

// decodeShopifyMemory reads a stored products.shopify; nil for none (SQL
// NULL, or JSON null).
func decodeShopifyMemory(raw []byte) (*shopifyMemory, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m shopifyMemory
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("stored Shopify columns: %w", err)
	}
	return &m, nil
}

// metafieldKey is the NS.KEY that m remembers for attribute name, ok false
// when it remembers none (m may be nil).
func (m *shopifyMemory) metafieldKey(name string) (label, key string, ok bool) {
	if m == nil {
		return "", "", false
	}
	for _, f := range m.Metafields {
		if f.Attribute == name {
			return f.Label, f.Key, true
		}
	}
	return "", "", false
}

// customKey is the metafield key of an attribute that no Shopify column
// remembers: "custom." and its name in lower case, every character
// outside a-z, 0-9, _ and - replaced by _ (Shopify's keys are ASCII).
func customKey(name string) string {
	var b strings.Builder
	b.Grow(len("custom.") + len(name))
	b.WriteString("custom.")
	for _, c := range strings.ToLower(name) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// appendMember appends `"name":` and value's JSON string to the object
// being built in b (its members so far: first false after the first).
func appendMember(b []byte, first bool, name, value string) []byte {
	if !first {
		b = append(b, ',')
	}
	b, _ = jsontext.AppendQuote(b, name)
	b = append(b, ':')
	b, _ = jsontext.AppendQuote(b, value)
	return b
}

// productMemory renders the product's part of a handle's memory, an open
// JSON object that variantMemory closes; computed once per handle, from
// its first row, whether it is active, its categories and the metafield
// columns to remember (metafieldAttributes). note: written by hand, as the attributes are: it is on the
// import's hot path.
func (c *shopifyColumns) productMemory(first []string, active bool, categories []string, metafields []rememberedMetafield) []byte {
	b := make([]byte, 0, 64+96*len(metafields))
	b = append(b, '{')
	members := 0
	add := func(name, value string) {
		b = appendMember(b, members == 0, name, value)
		members++
	}
	status, published := statusColumns(active, nil)
	if s := cell(first, c.status); c.status >= 0 && s != status {
		add("status", s)
	}
	if s := cell(first, c.published); c.published >= 0 && s != published {
		add("published", s)
	}
	if members > 0 {
		b = append(b, `,"active":`...)
		b = strconv.AppendBool(b, active)
	}
	category, typ := categoryColumns(categories, nil)
	if cat, t := cell(first, c.category), cell(first, c.typ); cat != category || t != typ {
		if cat != "" {
			add("category", cat)
		}
		if t != "" {
			add("type", t)
		}
	}
	if len(metafields) > 0 {
		if members > 0 {
			b = append(b, ',')
		}
		b = append(b, `"metafields":[`...)
		for i, m := range metafields {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendMember(append(b, '{'), true, "attribute", m.Attribute)
			b = appendMember(b, false, "label", m.Label)
			b = append(appendMember(b, false, "key", m.Key), '}')
		}
		b = append(b, ']')
	}
	return b
}

// variantMemory closes open (a product's part, or "{" for a variant that
// is not the master) with the variant's Variant Image, if any.
func variantMemory(open []byte, image string, own bool) string {
	if len(open) == 1 && image == "" {
		return "{}" // note: most variants; no allocation
	}
	b := make([]byte, 0, len(open)+len(image)+48)
	b = append(b, open...)
	if image != "" {
		b = appendMember(b, len(open) == 1, "variantImage", image)
		if own {
			b = append(b, `,"ownImage":true`...)
		}
	}
	return string(append(b, '}'))
}
