package catalog

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// The Shopify CSV export writes one Shopify product per variant family (a
// master and its variants, or a product on its own): one row per variant,
// the product's columns on its first row, then rows for the images the
// variants do not fill. It writes only the columns the service holds, so
// that Shopify, overwriting its products, keeps what the file leaves out
// (prices, inventory, tags, SEO). Attributes that are not the family's
// options become product metafield columns; the import reads the file
// back to the same products (docs/catalog-format.md, "Export").

// shopifyExportColumns come first, in the order of Shopify's template;
// the metafield columns follow.
var shopifyExportColumns = []string{colHandle, colTitle, colBody, colVendor, colCategory, colType, colPublished,
	"Option1 Name", "Option1 Value", "Option2 Name", "Option2 Value", "Option3 Name", "Option3 Value",
	colSKU, colBarcode, colImage, "Image Position", colVariantImage, colStatus}

// column positions in shopifyExportColumns
const (
	xHandle = iota
	xTitle
	xBody
	xVendor
	xCategory
	xType
	xPublished
	xOptions      // Option1 Name, Option1 Value, ... Option3 Value
	xSKU          = xOptions + 6
	xBarcode      = xSKU + 1
	xImage        = xSKU + 2
	xImagePos     = xSKU + 3
	xVariantImage = xSKU + 4
	xStatus       = xSKU + 5
	xMetafields   = xSKU + 6
)

// exportShopify writes the catalog as a Shopify product CSV.
func exportShopify(r *CatalogReader, w *bufio.Writer) (int, error) {
	metafields, err := metafieldOrder(r)
	if err != nil {
		return 0, err
	}
	brands, err := r.Brands()
	if err != nil {
		return 0, err
	}
	x := &shopifyWriter{cw: csv.NewWriter(w), brands: brands, metafields: make(map[string]int, len(metafields))}
	header := slices.Clone(shopifyExportColumns)
	for k, m := range metafields {
		x.metafields[m.key] = k
		header = append(header, m.header())
	}
	x.row = make([]string, len(header))
	if err := x.write(header); err != nil {
		return 0, fmt.Errorf("write the header: %w", err)
	}
	n := 0
	err = r.Products(true, func(heads []CatalogProduct) error {
		ids := make([]int64, len(heads))
		for i, h := range heads {
			ids[i] = h.ID
		}
		variants, err := r.Variants(ids)
		if err != nil {
			return err
		}
		byMaster := map[int64][]CatalogProduct{}
		for _, v := range variants {
			byMaster[v.Master] = append(byMaster[v.Master], v)
		}
		for _, h := range heads {
			family := append([]CatalogProduct{h}, byMaster[h.ID]...)
			if err := x.family(family); err != nil {
				return err
			}
			n += len(family)
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	x.cw.Flush()
	return n, x.cw.Error()
}

// shopifyWriter writes families as rows.
type shopifyWriter struct {
	cw         *csv.Writer
	brands     map[int64]CatalogBrand
	metafields map[string]int // metafield column by NS.KEY, after xMetafields
	row        []string
	escaped    []string // scratch: the row as written
}

// write writes one row, every cell that a spreadsheet would run behind a
// leading quote (enrichment.EscapeFormula).
func (x *shopifyWriter) write(row []string) error {
	x.escaped = append(x.escaped[:0], row...)
	for i, c := range x.escaped {
		x.escaped[i] = enrichment.EscapeFormula(c)
	}
	return x.cw.Write(x.escaped)
}

// exportMember is one product of a family as the export writes it.
type exportMember struct {
	p      CatalogProduct
	attrs  []enrichment.StoredAttribute
	images []string
	mem    *shopifyMemory // nil: not imported from a Shopify CSV
}

// decodeMember reads the JSON fields of a stored product.
func decodeMember(p CatalogProduct) (exportMember, error) {
	m := exportMember{p: p}
	var err error
	if m.attrs, err = storedAttributes(p.Attributes); err != nil {
		return m, fmt.Errorf("product %d: %w", p.ID, err)
	}
	if m.images, err = storedStrings(p.Images); err != nil {
		return m, fmt.Errorf("product %d: %w", p.ID, err)
	}
	if m.mem, err = decodeShopifyMemory(p.Shopify); err != nil {
		return m, fmt.Errorf("product %d: %w", p.ID, err)
	}
	return m, nil
}

// productImages are the images of m that are the product's: all of them
// but a Variant Image that the import added to them (not an Image Src).
func (m *exportMember) productImages() []string {
	if m.mem != nil && m.mem.OwnImage && len(m.images) > 0 && m.images[len(m.images)-1] == m.mem.VariantImage {
		return m.images[:len(m.images)-1]
	}
	return m.images
}

// variantImage is the Variant Image of m: the one it was imported with
// while it is still among its images, else the first of own, its images
// that are not the product's.
func (m *exportMember) variantImage(own []string) string {
	if m.mem != nil && m.mem.VariantImage != "" && slices.Contains(m.images, m.mem.VariantImage) {
		return m.mem.VariantImage
	}
	if len(own) > 0 {
		return own[0]
	}
	return ""
}

// family writes the rows of a master (family[0]) and its variants.
func (x *shopifyWriter) family(family []CatalogProduct) error {
	master := family[0]
	members := make([]exportMember, len(family))
	for i, p := range family {
		var err error
		if members[i], err = decodeMember(p); err != nil {
			return err
		}
	}
	var options []string
	if master.VariantAttributes != nil {
		va, err := storedStrings(master.VariantAttributes)
		if err != nil {
			return fmt.Errorf("product %d: %w", master.ID, err)
		}
		options = va[:min(len(va), 3)]
	}
	handle := shopifyHandle(master)
	// the images all variants start with are the product's; what follows
	// is a variant's own image
	shared := members[0].productImages()
	for _, m := range members[1:] {
		im := m.productImages()
		k := 0
		for k < len(shared) && k < len(im) && shared[k] == im[k] {
			k++
		}
		shared = shared[:k]
	}
	rows := max(len(family), len(shared))
	for i := range rows {
		clear(x.row)
		x.row[xHandle] = handle
		if i < len(shared) {
			x.row[xImage] = shared[i]
			x.row[xImagePos] = strconv.Itoa(i + 1)
		}
		if i == 0 {
			if err := x.productColumns(&members[0], options); err != nil {
				return err
			}
		}
		if i < len(family) {
			x.variantColumns(&members[i], handle, options, members[i].images[len(shared):])
		}
		if err := x.write(x.row); err != nil {
			return fmt.Errorf("write product %d: %w", family[0].ID, err)
		}
	}
	return nil
}

// productColumns fills the first row's product columns from the master.
func (x *shopifyWriter) productColumns(master *exportMember, options []string) error {
	row, p := x.row, master.p
	row[xTitle], row[xBody] = cmpOr(p.Name, p.SKU), p.Description // note: Shopify needs a title
	if b, ok := x.brands[p.Brand]; ok {
		row[xVendor] = b.Name
	}
	categories, err := storedStrings(p.Categories)
	if err != nil {
		return fmt.Errorf("product %d: %w", p.ID, err)
	}
	row[xCategory], row[xType] = categoryColumns(categories, master.mem)
	row[xStatus], row[xPublished] = statusColumns(p.Active, master.mem)
	if len(options) == 0 {
		row[xOptions] = defaultOption
	}
	for k, name := range options {
		row[xOptions+2*k] = name
	}
	for _, a := range master.attrs {
		if slices.Contains(options, a.Attribute) {
			continue
		}
		// note: two attributes of one column (names that customKey makes
		// one): the first is written
		if k := xMetafields + x.metafields[metafieldOf(master.mem, a.Attribute).key]; row[k] == "" {
			row[k] = a.Detail
		}
	}
	return nil
}

// categoryColumns are the Product Category and Type of a product with
// categories: the cells it was imported with while they still give its
// categories, else a Shopify taxonomy path (" > ") alone as the category,
// anything else alone as the type, and two as category and type.
func categoryColumns(categories []string, mem *shopifyMemory) (category, typ string) {
	if mem != nil {
		var had []string
		for _, c := range []string{mem.Category, mem.Type} {
			if c != "" {
				had = append(had, c)
			}
		}
		if slices.Equal(had, categories) {
			return mem.Category, mem.Type
		}
	}
	switch {
	case len(categories) == 1 && strings.Contains(categories[0], " > "):
		return categories[0], "" // Shopify's taxonomy path
	case len(categories) == 1:
		return "", categories[0]
	case len(categories) > 1:
		return categories[0], categories[1]
	}
	return "", ""
}

// statusColumns are the Status and Published of a product: as imported
// while it is as active as it was then (Published only where the file had
// the column), else active and TRUE, or draft and FALSE.
func statusColumns(active bool, mem *shopifyMemory) (status, published string) {
	status, published = "draft", "FALSE"
	if active {
		status, published = "active", "TRUE"
	}
	if mem == nil || mem.Active == nil || *mem.Active != active {
		return status, published
	}
	if mem.Status != nil {
		status = *mem.Status
	}
	if mem.Published != nil {
		published = *mem.Published
	}
	return status, published
}

// variantColumns fills a variant's columns: its option values, SKU (left
// empty where the import derives it), barcode and Variant Image (own: its
// images that are not the product's).
func (x *shopifyWriter) variantColumns(m *exportMember, handle string, options, own []string) {
	row, p := x.row, m.p
	if len(options) == 0 {
		row[xOptions+1] = defaultValue
	}
	for k, name := range options {
		row[xOptions+2*k+1] = detailOf(m.attrs, name)
	}
	if p.SKU != p.ExternalID || (p.ExternalID != handle && !strings.HasPrefix(p.ExternalID, handle+"/")) {
		row[xSKU] = p.SKU
	}
	row[xBarcode] = p.GTIN
	row[xVariantImage] = m.variantImage(own)
}

func detailOf(attrs []enrichment.StoredAttribute, name string) string {
	for _, a := range attrs {
		if a.Attribute == name {
			return a.Detail
		}
	}
	return ""
}

// shopifyHandlePattern is a handle as Shopify makes them.
var shopifyHandlePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// shopifyHandle is a family's handle: the one its externalId starts with
// (a product imported from Shopify keeps its handle, whatever its slug
// became), else its slug, else its SKU, made a handle.
func shopifyHandle(master CatalogProduct) string {
	prefix, _, _ := strings.Cut(master.ExternalID, "/")
	if shopifyHandlePattern.MatchString(prefix) {
		return prefix
	}
	for _, s := range []string{master.Slug, master.SKU, strconv.FormatInt(master.ID, 10)} {
		if h := handleize(s); h != "" {
			return h
		}
	}
	return ""
}

// handleize lowercases s and turns every run of other characters than
// letters and digits into one hyphen.
func handleize(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c > 127 {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}
