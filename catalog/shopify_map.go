package catalog

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// The columns of Shopify's product CSV that the import reads. Every other
// column (prices, inventory, weights, SEO, gift cards, tags, ...) is
// ignored: the service holds none of them.
const (
	colHandle       = "Handle"
	colTitle        = "Title"
	colBody         = "Body (HTML)"
	colVendor       = "Vendor"
	colCategory     = "Product Category"
	colType         = "Type"
	colPublished    = "Published"
	colStatus       = "Status"
	colSKU          = "Variant SKU"
	colBarcode      = "Variant Barcode"
	colImage        = "Image Src"
	colVariantImage = "Variant Image"
)

// defaultOption and defaultValue are the option name and value Shopify
// gives the only variant of a product without options.
const (
	defaultOption = "Title"
	defaultValue  = "Default Title"
)

// metafieldColumn reads "Color (product.metafields.shopify.color-pattern)".
var metafieldColumn = regexp.MustCompile(`^(.*?)\s*\(product\.metafields\.([^.()\s]+)\.([^()\s]+)\)$`)

// metafield is a product metafield column: the attribute it fills is its
// label, or key (NS.KEY) where the label is not unique.
type metafield struct {
	col        int
	label, key string
	byKey      bool // another metafield column has the same label (or none)
	// own: the key is the label's custom.KEY, the export's own column for
	// an attribute named by the label, which need not be remembered
	own bool
}

// shopifyColumns are the positions of the columns the import reads, -1
// for a column the file does not have.
type shopifyColumns struct {
	handle, title, body, vendor, category, typ, published, status int
	sku, barcode, image, variantImage                             int
	optionName, optionValue                                       [3]int
	variant                                                       []int // columns that only a variant row fills
	metafields                                                    []metafield
	keep                                                          []int // the columns project keeps
}

// shopifyHeader finds the columns the import reads in the header row.
func shopifyHeader(header []string) (*shopifyColumns, *Error) {
	for i, h := range header {
		header[i] = enrichment.UnescapeFormula(h) // a label that begins like a formula comes back so
	}
	at := map[string]int{} // by normalized name: Shopify's own files vary in case ("Product category")
	for i, h := range header {
		h = normalized(h)
		if _, dup := at[h]; dup && readColumn(h) {
			return nil, &Error{Line: 1, Column: i + 1, Msg: fmt.Sprintf("column %q appears twice", strings.TrimSpace(header[i]))}
		}
		if _, dup := at[h]; !dup {
			at[h] = i
		}
	}
	col := func(name string) int {
		if i, ok := at[normalized(name)]; ok {
			return i
		}
		return -1
	}
	c := &shopifyColumns{
		handle: col(colHandle), title: col(colTitle), body: col(colBody), vendor: col(colVendor),
		category: col(colCategory), typ: col(colType), published: col(colPublished), status: col(colStatus),
		sku: col(colSKU), barcode: col(colBarcode), image: col(colImage), variantImage: col(colVariantImage),
	}
	for _, need := range []struct {
		name string
		at   int
	}{{colHandle, c.handle}, {colTitle, c.title}} {
		if need.at < 0 {
			return nil, &Error{Line: 1, Msg: fmt.Sprintf("no %q column: this is not a Shopify product CSV (its header is %s)", need.name, headerSample(header))}
		}
	}
	for n := range 3 {
		c.optionName[n] = col(fmt.Sprintf("Option%d Name", n+1))
		c.optionValue[n] = col(fmt.Sprintf("Option%d Value", n+1))
		if c.optionValue[n] >= 0 {
			c.variant = append(c.variant, c.optionValue[n])
		}
	}
	labels := map[string]int{}
	keys := map[string]int{} // NS.KEY: the column that has it
	for i, h := range header {
		if n := normalized(h); strings.HasPrefix(n, "variant ") && n != normalized(colVariantImage) && at[n] == i {
			c.variant = append(c.variant, i)
		}
		if m := metafieldColumn.FindStringSubmatch(strings.TrimSpace(h)); m != nil {
			key := m[2] + "." + m[3]
			// note: the export writes one column per metafield, so a second
			// one's values would be lost on the way back
			if first, twice := keys[key]; twice {
				return nil, &Error{Line: 1, Column: i + 1, Msg: fmt.Sprintf("metafield %s has two columns (%q and %q): Shopify keeps one value per metafield",
					key, strings.TrimSpace(header[first]), strings.TrimSpace(h))}
			}
			keys[key] = i
			c.metafields = append(c.metafields, metafield{col: i, label: m[1], key: key})
			labels[m[1]]++
		}
	}
	for i := range c.metafields {
		m := &c.metafields[i]
		m.byKey = m.label == "" || labels[m.label] > 1
		m.own = m.key == customKey(m.label)
	}
	c.compact()
	return c, nil
}

// compact makes the column positions (but the metafields') positions in a
// row as project returns it: a product's rows keep only the few columns
// the import reads, not the dozens (or hundreds) of a Shopify export.
func (c *shopifyColumns) compact() {
	pos := func(i *int) {
		if *i >= 0 {
			c.keep = append(c.keep, *i)
			*i = len(c.keep) - 1
		}
	}
	for _, i := range []*int{&c.handle, &c.title, &c.body, &c.vendor, &c.category, &c.typ, &c.published, &c.status,
		&c.sku, &c.barcode, &c.image, &c.variantImage} {
		pos(i)
	}
	for k := range 3 {
		pos(&c.optionName[k])
		pos(&c.optionValue[k])
	}
	for k := range c.variant {
		pos(&c.variant[k])
	}
}

// project copies the cells of rec that the import reads, each trimmed
// (the body, HTML, as written) and then without the quote the export puts
// before a formula-like cell: trimmed after, a value's leading tab or
// carriage return, which that quote protects, would be lost.
func (c *shopifyColumns) project(rec []string) []string {
	out := make([]string, len(c.keep))
	for k, i := range c.keep {
		if k == c.body {
			out[k] = enrichment.UnescapeFormula(rec[i])
		} else {
			out[k] = importedCell(rec[i])
		}
	}
	return out
}

// metafieldValues copies the metafield cells of rec, in column order, as
// project does.
func (c *shopifyColumns) metafieldValues(rec []string) []string {
	out := make([]string, len(c.metafields))
	for k, m := range c.metafields {
		out[k] = importedCell(rec[m.col])
	}
	return out
}

// importedCell is a cell's value as the import reads it: trimmed, then
// without the export's quote before a formula-like value.
func importedCell(s string) string {
	return enrichment.UnescapeFormula(strings.TrimSpace(s))
}

// normalized is a header cell as columns are compared: trimmed, in lower
// case.
func normalized(h string) string {
	return strings.ToLower(strings.TrimSpace(h))
}

// readColumn reports a column (normalized) that the import reads; a column
// it ignores may appear twice.
func readColumn(h string) bool {
	for _, name := range []string{colHandle, colTitle, colBody, colVendor, colCategory, colType, colPublished, colStatus,
		colSKU, colBarcode, colImage, colVariantImage} {
		if h == normalized(name) {
			return true
		}
	}
	return strings.HasPrefix(h, "option") || metafieldColumn.MatchString(h)
}

func headerSample(header []string) string {
	const most = 5
	quoted := make([]string, 0, most)
	for _, h := range header[:min(len(header), most)] {
		quoted = append(quoted, fmt.Sprintf("%q", h))
	}
	s := strings.Join(quoted, ", ")
	if len(header) > most {
		s += ", ..."
	}
	return s
}

// cell is column i of a row as project keeps it, "" for a missing column.
func cell(row []string, i int) string {
	if i < 0 {
		return ""
	}
	return row[i]
}

// isVariant reports a row that fills a variant's column; the other rows
// after a handle's first carry only images.
func (c *shopifyColumns) isVariant(row []string) bool {
	for _, i := range c.variant {
		if cell(row, i) != "" {
			return true
		}
	}
	return cell(row, c.variantImage) != ""
}

// products maps the rows of one handle to the products of the catalog
// format, one per variant, with the line of each variant's row and what
// each remembers for the Shopify CSV export (products.shopify).
func (c *shopifyColumns) products(handle string, rows []shopifyRow) (handleProducts, error) {
	first := rows[0]
	title := cell(first.cells, c.title)
	if title == "" {
		return handleProducts{}, &Error{Path: colTitle, Line: first.line,
			Msg: fmt.Sprintf("required on the first row of handle %q (the rows of one handle must follow each other)", handle)}
	}
	active, err := c.active(first)
	if err != nil {
		return handleProducts{}, err
	}
	var names [3]string
	for i := range names {
		names[i] = cell(first.cells, c.optionName[i])
	}
	var images []string
	variants := []shopifyRow{first}
	for i, r := range rows {
		if img := cell(r.cells, c.image); img != "" && !contains(images, img) {
			images = append(images, img)
		}
		if i > 0 && c.isVariant(r.cells) {
			variants = append(variants, r)
		}
	}
	attrs, remembered := c.metafieldAttributes(first.meta, names)
	base := Product{
		Name: title, Slug: handle, Description: c.description(first.cells), Active: active,
		Attributes: attrs, Categories: c.categories(first.cells),
	}
	if v := cell(first.cells, c.vendor); v != "" {
		base.Brand = &Brand{Name: v}
	}
	h := handleFamily{c: c, handle: handle, base: base, images: images, names: names,
		memory: c.productMemory(first.cells, active == nil || *active, base.Categories, remembered)}
	if len(h.memory) > maxJSON {
		return handleProducts{}, &Error{Path: colHandle, Line: first.line, Msg: fmt.Sprintf(
			"the Shopify columns of handle %q that the export writes back (metafield labels and keys) are larger than %d bytes of JSON", handle, maxJSON)}
	}
	if len(variants) == 1 && len(c.options(first.cells, names)) == 0 { // Shopify's default variant: the product itself
		var out handleProducts
		h.add(&out, first, base, handle, cmpOr(cell(first.cells, c.sku), handle), true)
		return out, nil
	}
	return h.variants(variants)
}

// handleProducts are the products of one handle, with the line each comes
// from and what each remembers (products.shopify).
type handleProducts struct {
	products []Product
	lines    []int
	memory   []string
}

// handleFamily is what the products of one handle share.
type handleFamily struct {
	c      *shopifyColumns
	handle string
	base   Product
	images []string
	names  [3]string
	memory []byte // the product's part of the memory, open (productMemory)
}

// add appends the product of variant row v, its externalId and SKU
// settled, to out; master: the handle's first variant.
func (h *handleFamily) add(out *handleProducts, v shopifyRow, p Product, ext, sku string, master bool) {
	p.ExternalID, p.SKU = ext, sku
	p.GTIN = cell(v.cells, h.c.barcode)
	own := cell(v.cells, h.c.variantImage)
	p.Images = withImage(h.images, own)
	open := h.memory
	if !master {
		open = []byte{'{'}
	}
	out.products = append(out.products, p)
	out.lines = append(out.lines, v.line)
	out.memory = append(out.memory, variantMemory(open, own, own != "" && !contains(h.images, own)))
}

// variants maps a handle's variant rows to a family: the first variant is
// the master, the others name it.
func (h *handleFamily) variants(variants []shopifyRow) (handleProducts, error) {
	c := h.c
	var optionNames []string
	for _, n := range h.names {
		if n != "" {
			optionNames = append(optionNames, n)
		}
	}
	out := handleProducts{products: make([]Product, 0, len(variants)), lines: make([]int, 0, len(variants)),
		memory: make([]string, 0, len(variants))}
	var master string
	seen := make(map[string]int, len(variants))
	told := make(map[string]int, len(variants)) // option values: the variant's line
	for i, v := range variants {
		p := h.base
		opts := c.options(v.cells, h.names)
		// note: Shopify tells a product's variants apart by their option
		// values alone; two with the same ones (none, say) would be
		// exported as rows Shopify refuses
		key := optionValues(opts)
		if prev, same := told[key]; same {
			return handleProducts{}, &Error{Path: "Option1 Value", Line: v.line, Msg: fmt.Sprintf(
				"a variant of handle %q with the same option values as line %d: Shopify tells a product's variants apart by them", h.handle, prev)}
		}
		told[key] = v.line
		p.Attributes = append(append(make([]Attribute, 0, len(opts)+len(h.base.Attributes)), opts...), h.base.Attributes...)
		sku := cell(v.cells, c.sku)
		ext := h.handle + "/" + sku
		if sku == "" {
			values := make([]string, len(opts))
			for j, o := range opts {
				values[j] = o.Detail
			}
			ext = h.handle + "/" + strings.Join(values, "/")
		}
		if prev, dup := seen[ext]; dup {
			return handleProducts{}, &Error{Path: colSKU, Line: v.line, Msg: fmt.Sprintf(
				"a second variant %q of handle %q (also line %d): each variant needs its own SKU or option values", ext, h.handle, prev)}
		}
		seen[ext] = v.line
		if i == 0 {
			master = cmpOr(sku, ext)
			p.VariantAttributes = &optionNames
		} else {
			p.VariantMaster = master
		}
		h.add(&out, v, p, ext, cmpOr(sku, ext), i == 0)
	}
	return out, nil
}

// description is the Body (HTML) of a row as it is, untrimmed.
func (c *shopifyColumns) description(row []string) string {
	if c.body < 0 {
		return ""
	}
	return row[c.body]
}

// active reads Status (active, draft or archived) or, when the file has
// no Status, Published (TRUE or FALSE); nil when neither says.
func (c *shopifyColumns) active(first shopifyRow) (*bool, error) {
	yes, no := true, false
	if s := strings.ToLower(cell(first.cells, c.status)); s != "" {
		switch s {
		case "active":
			return &yes, nil
		case "draft", "archived":
			return &no, nil
		}
		return nil, &Error{Path: colStatus, Line: first.line, Msg: fmt.Sprintf("want active, draft or archived, got %q", cell(first.cells, c.status))}
	}
	if s := strings.ToLower(cell(first.cells, c.published)); s != "" {
		switch s {
		case "true":
			return &yes, nil
		case "false":
			return &no, nil
		}
		return nil, &Error{Path: colPublished, Line: first.line, Msg: fmt.Sprintf("want TRUE or FALSE, got %q", cell(first.cells, c.published))}
	}
	return nil, nil
}

// options are a variant's option values as attributes named by the
// product's option names (Shopify's "Title: Default Title" is none).
func (c *shopifyColumns) options(row []string, names [3]string) []Attribute {
	var out []Attribute
	for i, name := range names {
		value := cell(row, c.optionValue[i])
		if name == "" || value == "" || (name == defaultOption && value == defaultValue) {
			continue
		}
		out = append(out, Attribute{Attribute: name, Detail: value})
	}
	return out
}

// optionValues is a variant's option values as one key.
func optionValues(opts []Attribute) string {
	var b strings.Builder
	for _, o := range opts {
		b.WriteString(o.Attribute)
		b.WriteByte(0)
		b.WriteString(o.Detail)
		b.WriteByte(0)
	}
	return b.String()
}

// metafieldAttributes are the product's metafields (values, from its first
// row) as attributes, named by their labels, or by NS.KEY where a label is
// not unique or names an option; and the column of each one that the
// export would not find by itself (see metafield.own), to remember.
func (c *shopifyColumns) metafieldAttributes(values []string, options [3]string) ([]Attribute, []rememberedMetafield) {
	var out []Attribute
	var remembered []rememberedMetafield
	for k, m := range c.metafields {
		value := values[k]
		if value == "" {
			continue
		}
		name := m.label
		if m.byKey || name == options[0] || name == options[1] || name == options[2] {
			name = m.key
		}
		out = append(out, Attribute{Attribute: name, Detail: value})
		if name != m.label || !m.own {
			remembered = append(remembered, rememberedMetafield{Attribute: name, Label: m.label, Key: m.key})
		}
	}
	return out, remembered
}

// categories are the Product Category and the Type, where present.
func (c *shopifyColumns) categories(row []string) []string {
	var out []string
	for _, i := range []int{c.category, c.typ} {
		if v := cell(row, i); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// withImage is images with a variant's own image added at the end, unless
// it is one of them.
func withImage(images []string, own string) []string {
	if own == "" || contains(images, own) {
		return images
	}
	return append(images[:len(images):len(images)], own)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// shopifyFields name, for each field of the catalog format, the Shopify
// columns it is read from.
var shopifyFields = map[string]string{
	"sku": colSKU, "externalId": colHandle + " and " + colSKU, "gtin": colBarcode, "name": colTitle,
	"slug": colHandle, "description": colBody, "brand": colVendor, "attributes": "options and metafields",
	"categories": colCategory + " and " + colType, "images": colImage + " and " + colVariantImage,
	"variantMaster": colSKU + " of the handle's first variant", "variantAttributes": "Option1..3 Name",
}

// shopifyColumnOf renders an error's path in the catalog format
// ("products[12].name") as the Shopify column it comes from ("Title").
func shopifyColumnOf(path string) string {
	rest, ok := strings.CutPrefix(path, "products[")
	if !ok {
		return path
	}
	_, field, ok := strings.Cut(rest, "].")
	if !ok {
		return path
	}
	name := field
	if i := strings.IndexAny(name, ".["); i >= 0 {
		name = name[:i]
	}
	if col, ok := shopifyFields[name]; ok {
		return col
	}
	return path
}
