package catalog

import (
	"bufio"
	"encoding/csv"
	"encoding/json/v2"
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
	names, err := metafieldOrder(r)
	if err != nil {
		return 0, err
	}
	brands, err := r.Brands()
	if err != nil {
		return 0, err
	}
	cw := csv.NewWriter(w)
	header := slices.Concat(shopifyExportColumns, metafieldHeaders(names))
	if err := cw.Write(header); err != nil {
		return 0, fmt.Errorf("write the header: %w", err)
	}
	x := &shopifyWriter{cw: cw, brands: brands, metafields: names, row: make([]string, len(header))}
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
	cw.Flush()
	return n, cw.Error()
}

// shopifyWriter writes families as rows.
type shopifyWriter struct {
	cw         *csv.Writer
	brands     map[int64]CatalogBrand
	metafields []string // attribute names, in column order after xMetafields
	row        []string
}

// family writes the rows of a master (family[0]) and its variants.
func (x *shopifyWriter) family(family []CatalogProduct) error {
	master := family[0]
	attrs := make([][]enrichment.StoredAttribute, len(family))
	images := make([][]string, len(family))
	for i, p := range family {
		var err error
		if attrs[i], err = storedAttributes(p.Attributes); err != nil {
			return fmt.Errorf("product %d: %w", p.ID, err)
		}
		if images[i], err = storedStrings(p.Images); err != nil {
			return fmt.Errorf("product %d: %w", p.ID, err)
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
	shared := images[0]
	for _, im := range images[1:] {
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
			if err := x.productColumns(master, attrs[0], options); err != nil {
				return err
			}
		}
		if i < len(family) {
			x.variantColumns(family[i], handle, attrs[i], options, images[i][len(shared):])
		}
		if err := x.cw.Write(x.row); err != nil {
			return fmt.Errorf("write product %d: %w", family[0].ID, err)
		}
	}
	return nil
}

// productColumns fills the first row's product columns from the master.
func (x *shopifyWriter) productColumns(master CatalogProduct, attrs []enrichment.StoredAttribute, options []string) error {
	row := x.row
	row[xTitle], row[xBody] = cmpOr(master.Name, master.SKU), master.Description // note: Shopify needs a title
	if b, ok := x.brands[master.Brand]; ok {
		row[xVendor] = b.Name
	}
	categories, err := storedStrings(master.Categories)
	if err != nil {
		return fmt.Errorf("product %d: %w", master.ID, err)
	}
	switch {
	case len(categories) == 1 && strings.Contains(categories[0], " > "):
		row[xCategory] = categories[0] // Shopify's taxonomy path
	case len(categories) == 1:
		row[xType] = categories[0]
	case len(categories) > 1:
		row[xCategory], row[xType] = categories[0], categories[1]
	}
	row[xPublished], row[xStatus] = "FALSE", "draft"
	if master.Active {
		row[xPublished], row[xStatus] = "TRUE", "active"
	}
	if len(options) == 0 {
		row[xOptions] = defaultOption
	}
	for k, name := range options {
		row[xOptions+2*k] = name
	}
	for k, name := range x.metafields {
		if !slices.Contains(options, name) {
			row[xMetafields+k] = detailOf(attrs, name)
		}
	}
	return nil
}

// variantColumns fills a variant's columns: its option values, SKU (left
// empty where the import derives it), barcode and own image.
func (x *shopifyWriter) variantColumns(p CatalogProduct, handle string, attrs []enrichment.StoredAttribute, options, own []string) {
	row := x.row
	if len(options) == 0 {
		row[xOptions+1] = defaultValue
	}
	for k, name := range options {
		row[xOptions+2*k+1] = detailOf(attrs, name)
	}
	if p.SKU != p.ExternalID || (p.ExternalID != handle && !strings.HasPrefix(p.ExternalID, handle+"/")) {
		row[xSKU] = p.SKU
	}
	row[xBarcode] = p.GTIN
	if len(own) > 0 {
		row[xVariantImage] = own[0]
	}
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

// metafieldKeyPattern is an attribute the import named NS.KEY.
var metafieldKeyPattern = regexp.MustCompile(`^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$`)

// metafieldHeaders are the column headers of attributes names: "Label
// (product.metafields.custom.label)", or for a NS.KEY name that key; a
// key that two names would share gets a number.
func metafieldHeaders(names []string) []string {
	out := make([]string, len(names))
	used := map[string]bool{}
	for i, name := range names {
		key := name
		if !metafieldKeyPattern.MatchString(name) {
			key = "custom." + strings.ReplaceAll(handleize(name), "-", "_")
			if key == "custom." {
				key = "custom.attribute"
			}
		}
		for k, base := 2, key; used[key]; k++ {
			key = fmt.Sprintf("%s_%d", base, k)
		}
		used[key] = true
		out[i] = name + " (product.metafields." + key + ")"
	}
	return out
}

// metafieldOrder lists the attribute names that some product has besides
// its family's options, in an order that keeps every product's own order
// of them where the products agree (the columns of the Shopify file they
// came from, say): ordered by precedence, ties by first appearance.
func metafieldOrder(r *CatalogReader) ([]string, error) {
	index := map[string]int{} // name → first appearance
	var names []string
	after := map[[2]int]bool{} // a name directly followed by another in some product
	err := r.EachAttributeList(func(raw, variantAttributes []byte) error {
		var attrs []struct {
			Attribute string `json:"attribute"`
		}
		if err := json.Unmarshal(raw, &attrs); err != nil {
			return fmt.Errorf("stored attributes: %w", err)
		}
		var options []string
		if len(variantAttributes) > 0 {
			if err := json.Unmarshal(variantAttributes, &options); err != nil {
				return fmt.Errorf("stored variant attributes: %w", err)
			}
			options = options[:min(len(options), 3)]
		}
		prev := -1
		for _, a := range attrs {
			if slices.Contains(options, a.Attribute) {
				continue
			}
			i, ok := index[a.Attribute]
			if !ok {
				i = len(names)
				index[a.Attribute] = i
				names = append(names, a.Attribute)
			}
			if prev >= 0 && prev != i {
				after[[2]int{prev, i}] = true
			}
			prev = i
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Kahn's sort, the earliest name first among the ready ones; a cycle
	// (products that disagree) is broken at its earliest name
	in := make([]int, len(names))
	next := make([][]int, len(names))
	for e := range after {
		next[e[0]] = append(next[e[0]], e[1])
		in[e[1]]++
	}
	done := make([]bool, len(names))
	out := make([]string, 0, len(names))
	for len(out) < len(names) {
		pick := -1
		for i := range names {
			if !done[i] && in[i] == 0 {
				pick = i
				break
			}
		}
		if pick < 0 {
			for i := range names {
				if !done[i] {
					pick = i
					break
				}
			}
		}
		done[pick] = true
		out = append(out, names[pick])
		for _, j := range next[pick] {
			in[j]--
		}
	}
	return out, nil
}
