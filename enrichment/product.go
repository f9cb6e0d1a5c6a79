package enrichment

// Page is the paged envelope of the product export, the SKU lookup and the
// revisions list.
type Page[T any] struct {
	Items         []T `json:"items"`
	Page          int `json:"page"`
	PageSize      int `json:"pageSize"`
	TotalElements int `json:"totalElements"`
	TotalPages    int `json:"totalPages"`
}

// NewPage is page number page (zero-based) of size items out of total.
func NewPage[T any](items []T, page, size, total int) Page[T] {
	return Page[T]{Items: items, Page: page, PageSize: size, TotalElements: total, TotalPages: (total + size - 1) / size}
}

// Product is a product as the API exports it.
type Product struct {
	ID                  int64       `json:"id"`
	SKU                 string      `json:"sku"`
	ExternalID          string      `json:"externalId"`
	GTIN                string      `json:"gtin"`
	Name                string      `json:"name"`
	Slug                string      `json:"slug"`
	Description         string      `json:"description"`
	AttributeTemplateID *int64      `json:"attributeTemplateId"`
	Attributes          []Attribute `json:"attributes"`
	Brand               *Brand      `json:"brand"`
	Categories          []string    `json:"categories"`
	Images              []string    `json:"images"`
	Files               []string    `json:"files"`
	// The three variant fields are null unless the product is in a family.
	VariantAttributes *[]string  `json:"variantAttributes"`
	Variants          *[]Variant `json:"variants"`
	VariantMaster     *string    `json:"variantMaster"`
	// Completeness and Gaps measure the product's slots (completeness.go).
	Completeness int      `json:"completeness"`
	Gaps         []string `json:"gaps"`
}

// Attribute is a product attribute; Option is nil for a free-form one.
type Attribute struct {
	Attribute string     `json:"attribute"`
	Detail    string     `json:"detail"`
	Option    *OptionRef `json:"option"`
}

// OptionRef is the template option an attribute is linked to.
type OptionRef struct {
	OptionID      int64   `json:"optionId"`
	Unit          *string `json:"unit"`
	Priority      int     `json:"priority"`
	DataType      *string `json:"dataType"`
	ShowOnWebsite bool    `json:"showOnWebsite"`
}

// Brand is a product's brand.
type Brand struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Website string `json:"website"`
	Slug    string `json:"slug"`
}

// Variant is a sibling in a master product's family.
type Variant struct {
	ID         int64       `json:"id"`
	SKU        string      `json:"sku"`
	Name       string      `json:"name"`
	Attributes []Attribute `json:"attributes"`
}

// Template is an attribute template with its options.
type Template struct {
	ID      int64    `json:"id"`
	Name    string   `json:"name"`
	Options []Option `json:"options"`
}

// Option is one attribute of a template.
type Option struct {
	ID            int64   `json:"id"`
	Attribute     string  `json:"attribute"`
	Unit          *string `json:"unit"`
	Priority      int     `json:"priority"`
	DataType      *string `json:"dataType"`
	ShowOnWebsite bool    `json:"showOnWebsite"`
	IsSearchable  bool    `json:"isSearchable"`
}

// StoredAttribute is an attribute as a product record keeps it (JSON field
// "attributes"); OptionID links it to a template option, 0 when free-form.
type StoredAttribute struct {
	Attribute string `json:"attribute"`
	Detail    string `json:"detail"`
	OptionID  int64  `json:"optionId,omitzero"`
}
