// Package catalog reads catalog files (attribute templates and products, the
// format docs/catalog-format.md describes) and imports them into one
// organization, all or nothing, streaming the products so a large file is
// never held whole.
package catalog

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// A catalog file is one JSON object:
//
//	{"attributeTemplates": [Template...], "products": [Product...]}
//
// Either key may be missing or null, in any order; other keys are ignored.

// Template is an attribute template; Active is true when absent or null.
type Template struct {
	Name    string   `json:"name"`
	Active  *bool    `json:"active"`
	Options []Option `json:"options"`
}

// Option is one attribute of a template; a null Unit or DataType is none.
type Option struct {
	Attribute     string  `json:"attribute"`
	Unit          *string `json:"unit"`
	Priority      int     `json:"priority"`
	DataType      *string `json:"dataType"`
	ShowOnWebsite bool    `json:"showOnWebsite"`
	IsSearchable  bool    `json:"isSearchable"`
}

// Product is one product of the file. AttributeTemplate names a template of
// the file or of the organization; VariantMaster is the SKU of the family's
// master; Active is true when absent or null.
type Product struct {
	SKU               string      `json:"sku"`
	ExternalID        string      `json:"externalId"`
	GTIN              string      `json:"gtin"`
	Name              string      `json:"name"`
	Slug              string      `json:"slug"`
	Description       string      `json:"description"`
	Active            *bool       `json:"active"`
	AttributeTemplate string      `json:"attributeTemplate"`
	Attributes        []Attribute `json:"attributes"`
	Brand             *Brand      `json:"brand"`
	Categories        []string    `json:"categories"`
	Images            []string    `json:"images"`
	Files             []string    `json:"files"`
	VariantMaster     string      `json:"variantMaster,omitempty"`
	VariantAttributes *[]string   `json:"variantAttributes"`
}

// Attribute is a product attribute; it links to the template option of the
// same name, if there is one.
type Attribute struct {
	Attribute string `json:"attribute"`
	Detail    string `json:"detail"`
}

// Brand is a product's brand, upserted by name. A missing or null Website or
// Slug keeps what is stored, so products can name a brand without repeating it.
type Brand struct {
	Name    string  `json:"name"`
	Website *string `json:"website"`
	Slug    *string `json:"slug"`
}

// Text limits of the schema, in characters, and of one JSON field in bytes.
const (
	maxName        = enrichment.MaxNameLength  // template, option attribute, brand name and slug, SKU, externalId
	maxShort       = enrichment.MaxShortLength // gtin, option unit and data type
	maxProductText = enrichment.MaxProductTextLength
	maxWebsite     = enrichment.MaxWebsiteLength
	maxDescription = enrichment.MaxDescriptionLength
	maxJSON        = enrichment.MaxJSONFieldSize
)

// check collects the first problem of item index of a list, with its path.
// note: the path is only rendered for a problem; valid items, nearly all of
// them, cost no formatting.
type check struct {
	list  string
	index int
	err   *Error
}

func (c *check) fail(field, format string, args ...any) {
	if c.err == nil {
		c.err = &Error{Path: fmt.Sprintf("%s[%d]%s", c.list, c.index, field), Msg: fmt.Sprintf(format, args...)}
	}
}

func (c *check) required(field, value string) {
	if strings.TrimSpace(value) == "" {
		c.fail(field, "required")
	}
}

func (c *check) max(field, value string, limit int) {
	if len(value) > limit && utf8.RuneCountInString(value) > limit {
		c.fail(field, "longer than %d characters", limit)
	}
}

func (c *check) maxPtr(field string, value *string, limit int) {
	if value != nil {
		c.max(field, *value, limit)
	}
}

// validate checks template i alone; duplicates across templates are the
// importer's business.
func (t *Template) validate(i int) *Error {
	c := check{list: "attributeTemplates", index: i}
	c.required(".name", t.Name)
	c.max(".name", t.Name, maxName)
	seen := make(map[string]int, len(t.Options))
	for j, o := range t.Options {
		field := fmt.Sprintf(".options[%d]", j)
		c.required(field+".attribute", o.Attribute)
		c.max(field+".attribute", o.Attribute, maxName)
		c.maxPtr(field+".unit", o.Unit, maxShort)
		c.maxPtr(field+".dataType", o.DataType, maxShort)
		if first, dup := seen[o.Attribute]; dup {
			c.fail(field+".attribute", "duplicate attribute %q (also options[%d])", o.Attribute, first)
		}
		seen[o.Attribute] = j
	}
	return c.err
}

// validate checks product i alone; references and duplicates are checked by
// the importer, which sees the whole file.
func (p *Product) validate(i int) *Error {
	c := check{list: "products", index: i}
	c.required(".sku", p.SKU)
	c.max(".sku", p.SKU, maxName)
	c.max(".externalId", p.ExternalID, maxName)
	c.max(".gtin", p.GTIN, maxShort)
	c.max(".name", p.Name, maxProductText)
	c.max(".slug", p.Slug, maxProductText)
	c.max(".description", p.Description, maxDescription)
	for j, a := range p.Attributes {
		if strings.TrimSpace(a.Attribute) == "" {
			c.fail(fmt.Sprintf(".attributes[%d].attribute", j), "required")
		}
	}
	if b := p.Brand; b != nil {
		c.required(".brand.name", b.Name)
		c.max(".brand.name", b.Name, maxName)
		c.maxPtr(".brand.website", b.Website, maxWebsite)
		c.maxPtr(".brand.slug", b.Slug, maxName)
	}
	if p.VariantMaster != "" && p.VariantMaster == p.SKU {
		c.fail(".variantMaster", "a product cannot be its own variant master")
	}
	return c.err
}

// active reads an optional flag that defaults to true.
func active(b *bool) bool {
	return b == nil || *b
}

// deref reads an optional string, "" for null.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
