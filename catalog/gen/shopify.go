package gen

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/catalog-enrichment/enrichment/catalog"
)

// shopifyColumns are the columns of Shopify's product template that
// WriteShopifyCSV writes, in the order of Shopify's exports; the metafield
// columns follow.
var shopifyColumns = []string{"Handle", "Title", "Body (HTML)", "Vendor", "Product Category", "Type", "Tags", "Published",
	"Option1 Name", "Option1 Value", "Option2 Name", "Option2 Value", "Option3 Name", "Option3 Value",
	"Variant SKU", "Variant Grams", "Variant Inventory Tracker", "Variant Inventory Qty", "Variant Inventory Policy",
	"Variant Fulfillment Service", "Variant Price", "Variant Compare At Price", "Variant Requires Shipping",
	"Variant Taxable", "Variant Barcode", "Image Src", "Image Position", "Image Alt Text", "Gift Card",
	"SEO Title", "SEO Description", "Variant Image", "Variant Weight Unit", "Cost per item", "Status"}

// WriteShopifyCSV streams the catalog Write would generate as a Shopify
// product CSV, the way Shopify's admin exports one: one handle per
// standalone product or variant family, a row per variant (options from the
// family's variant attributes, Shopify's "Title: Default Title" for a
// product without them), the product's columns and its other attributes
// (as metafield columns) on the first row, and image-only rows for the
// master's images beyond the variants' rows. opt.Products counts variants;
// the file has more rows than that.
func WriteShopifyCSV(w io.Writer, opt Options) error {
	if err := opt.validate(); err != nil {
		return err
	}
	g := newGenerator(opt)
	var names []string // every attribute name of the templates: the metafield columns
	for _, t := range g.templates {
		for _, s := range t.specs {
			if !slices.Contains(names, s.name) {
				names = append(names, s.name)
			}
		}
	}
	header := slices.Clone(shopifyColumns)
	for _, n := range names {
		header = append(header, fmt.Sprintf("%s (product.metafields.custom.%s)", n, strings.ReplaceAll(slugify(n), "-", "_")))
	}
	col := make(map[string]int, len(header))
	for i, h := range header {
		col[h] = i
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	cw := csv.NewWriter(bw)
	if err := cw.Write(header); err != nil {
		return err
	}
	row := make([]string, len(header))
	set := func(name, value string) { row[col[name]] = value }
	for g.emitted < opt.Products {
		family := g.nextUnit()
		master := family[0]
		handle := fmt.Sprintf("%s-%d", master.Slug, g.units)
		var options []string
		if master.VariantAttributes != nil {
			options = *master.VariantAttributes
		}
		rows := max(len(family), len(master.Images))
		for i := range rows {
			clear(row)
			set("Handle", handle)
			if i < len(master.Images) {
				set("Image Src", master.Images[i])
				set("Image Position", strconv.Itoa(i+1))
			}
			if i == 0 {
				shopifyProduct(set, &master, options, names)
			}
			if i < len(family) {
				shopifyVariant(set, &family[i], options, i)
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// shopifyProduct sets the first row's product columns.
func shopifyProduct(set func(name, value string), p *catalog.Product, options, names []string) {
	set("Title", p.Name)
	if p.Description != "" {
		set("Body (HTML)", "<p>"+strings.ReplaceAll(p.Description, "\n\n", "</p>\n<p>")+"</p>")
	}
	set("Vendor", p.Brand.Name)
	set("Product Category", strings.Join(p.Categories, " > "))
	if len(p.Categories) > 0 {
		set("Type", p.Categories[len(p.Categories)-1])
	}
	set("Tags", strings.Join(p.Categories, ", "))
	set("Published", "TRUE")
	set("Status", "active")
	if p.Active != nil && !*p.Active {
		set("Published", "FALSE")
		set("Status", "draft")
	}
	set("Gift Card", "FALSE")
	set("SEO Title", p.Name)
	if len(options) == 0 {
		set("Option1 Name", "Title")
	}
	for k, o := range options[:min(len(options), 3)] {
		set(fmt.Sprintf("Option%d Name", k+1), o)
	}
	for _, a := range p.Attributes {
		if a.Detail != "" && !slices.Contains(options, a.Attribute) && slices.Contains(names, a.Attribute) {
			set(fmt.Sprintf("%s (product.metafields.custom.%s)", a.Attribute, strings.ReplaceAll(slugify(a.Attribute), "-", "_")), a.Detail)
		}
	}
}

// shopifyVariant sets a variant's columns; i is its place in the family.
func shopifyVariant(set func(name, value string), p *catalog.Product, options []string, i int) {
	if len(options) == 0 {
		set("Option1 Value", "Default Title")
	}
	for k, o := range options[:min(len(options), 3)] {
		for _, a := range p.Attributes {
			if a.Attribute == o {
				set(fmt.Sprintf("Option%d Value", k+1), a.Detail)
			}
		}
	}
	set("Variant SKU", p.SKU)
	set("Variant Grams", strconv.Itoa(100+len(p.Name)*7))
	set("Variant Inventory Tracker", "shopify")
	set("Variant Inventory Qty", strconv.Itoa(len(p.SKU)*3))
	set("Variant Inventory Policy", "deny")
	set("Variant Fulfillment Service", "manual")
	set("Variant Price", fmt.Sprintf("%d.99", 9+len(p.Name)%90))
	set("Variant Requires Shipping", "TRUE")
	set("Variant Taxable", "TRUE")
	set("Variant Barcode", p.GTIN)
	set("Variant Weight Unit", "g")
	if i > 0 && len(p.Images) > 0 {
		set("Variant Image", p.Images[0])
	}
}
