package gen

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Test-side view of the import format, declared independently of the
// generator's own types so that field names are checked too.
type tOption struct {
	Attribute     string  `json:"attribute"`
	Unit          *string `json:"unit"`
	Priority      int     `json:"priority"`
	DataType      *string `json:"dataType"`
	ShowOnWebsite bool    `json:"showOnWebsite"`
	IsSearchable  bool    `json:"isSearchable"`
}

type tTemplate struct {
	Name    string    `json:"name"`
	Active  bool      `json:"active"`
	Options []tOption `json:"options"`
}

type tBrand struct {
	Name    string `json:"name"`
	Website string `json:"website"`
	Slug    string `json:"slug"`
}

type tProduct struct {
	SKU               string   `json:"sku"`
	ExternalID        string   `json:"externalId"`
	GTIN              string   `json:"gtin"`
	Name              string   `json:"name"`
	Slug              string   `json:"slug"`
	Description       *string  `json:"description"`
	Active            *bool    `json:"active"`
	AttributeTemplate string   `json:"attributeTemplate"`
	Attributes        []tAttr  `json:"attributes"`
	Brand             *tBrand  `json:"brand"`
	Categories        []string `json:"categories"`
	Images            []string `json:"images"`
	Files             []string `json:"files"`
	VariantMaster     *string  `json:"variantMaster"`
	VariantAttributes []string `json:"variantAttributes"`
}

type tAttr struct {
	Attribute string `json:"attribute"`
	Detail    string `json:"detail"`
}

var (
	slugRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	gtinRE = regexp.MustCompile(`^[0-9]{14}$`)
)

// family tracks a master and the variants seen so far.
type family struct {
	p      *tProduct
	size   int
	combos map[string]bool
	values []map[string]bool // distinct values per variant attribute
}

// checkCatalog generates a catalog, decodes it as a stream and checks the
// format and realism rules; shares are checked only for large runs.
func checkCatalog(t *testing.T, opt Options, shares bool) {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(Write(pw, opt)) }()
	defer pr.Close()
	dec := json.NewDecoder(pr)

	expect := func(want json.Delim) {
		t.Helper()
		tok, err := dec.Token()
		if err != nil || tok != want {
			t.Fatalf("token: got %v (%v), want %v", tok, err, want)
		}
	}
	key := func(want string) {
		t.Helper()
		tok, err := dec.Token()
		if err != nil || tok != want {
			t.Fatalf("key: got %v (%v), want %q", tok, err, want)
		}
	}

	expect('{')
	key("attributeTemplates")
	var templates []tTemplate
	if err := dec.Decode(&templates); err != nil {
		t.Fatal(err)
	}
	if len(templates) != opt.Templates {
		t.Fatalf("templates: got %d, want %d", len(templates), opt.Templates)
	}
	options := map[string]map[string]tOption{}
	for _, tm := range templates {
		checkTemplate(t, tm)
		if options[tm.Name] != nil {
			t.Fatalf("duplicate template name %q", tm.Name)
		}
		options[tm.Name] = map[string]tOption{}
		for _, o := range tm.Options {
			options[tm.Name][o.Attribute] = o
		}
	}

	key("products")
	expect('[')
	var (
		n, inactive, inFamilies, emptyDescr, attrs, emptyAttrs int
		skus, ids, slugs                                       = map[string]bool{}, map[string]bool{}, map[string]bool{}
		brands                                                 = map[string]tBrand{}
		families                                               = map[string]*family{}
	)
	for dec.More() {
		p := new(tProduct)
		if err := dec.Decode(p); err != nil {
			t.Fatalf("product %d: %v", n, err)
		}
		n++
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("product %s: %s", p.SKU, fmt.Sprintf(format, args...))
		}
		// Identity.
		for _, u := range []struct {
			v    string
			seen map[string]bool
		}{{p.SKU, skus}, {p.ExternalID, ids}, {p.Slug, slugs}} {
			if u.v == "" || u.seen[u.v] {
				fail("empty or duplicate identifier %q", u.v)
			}
			u.seen[u.v] = true
		}
		if !slugRE.MatchString(p.Slug) || p.Slug != slugify(p.Name) {
			fail("slug %q is not derived from name %q", p.Slug, p.Name)
		}
		if !validGTIN(p.GTIN) {
			fail("invalid GTIN %q", p.GTIN)
		}
		if p.Active == nil || p.Description == nil {
			fail("missing active or description")
		}
		if !*p.Active {
			inactive++
		}
		if d := *p.Description; d == "" {
			emptyDescr++
		} else if c := utf8.RuneCountInString(d); c < 200 || c > 1500 {
			fail("description has %d characters", c)
		} else if strings.Contains(d, "%") || strings.Contains(d, "  ") {
			fail("malformed description %q", d)
		}
		// Brand, categories, media.
		if p.Brand == nil || p.Brand.Name == "" || !slugRE.MatchString(p.Brand.Slug) {
			fail("bad brand %+v", p.Brand)
		}
		if b, ok := brands[p.Brand.Name]; ok && b != *p.Brand {
			fail("brand %q changed: %+v vs %+v", b.Name, b, *p.Brand)
		}
		brands[p.Brand.Name] = *p.Brand
		checkURL(t, p.Brand.Website)
		if len(p.Categories) < 1 || len(p.Categories) > 3 || slices.Contains(p.Categories, "") {
			fail("categories %q", p.Categories)
		}
		if len(p.Images) < 1 || len(p.Images) > 5 || p.Files == nil || len(p.Files) > 2 {
			fail("%d images, files %v", len(p.Images), p.Files)
		}
		for i, u := range p.Images {
			if opt.ImageBase == "" {
				checkURL(t, u)
			} else if want := fmt.Sprintf("%s%s-%d.svg", opt.ImageBase, p.SKU, i+1); u != want {
				fail("image %d is %q, want %q", i+1, u, want)
			}
		}
		for _, u := range p.Files {
			checkURL(t, u)
		}
		// Attributes.
		opts, ok := options[p.AttributeTemplate]
		if !ok {
			fail("unknown template %q", p.AttributeTemplate)
		}
		if max := min(20, len(opts)); len(p.Attributes) < 8 || len(p.Attributes) > max {
			fail("%d attributes, want 8..%d", len(p.Attributes), max)
		}
		names := map[string]string{}
		for _, a := range p.Attributes {
			o, ok := opts[a.Attribute]
			if !ok {
				fail("attribute %q is not an option of template %q", a.Attribute, p.AttributeTemplate)
			}
			if _, dup := names[a.Attribute]; dup {
				fail("attribute %q listed twice", a.Attribute)
			}
			names[a.Attribute] = a.Detail
			attrs++
			if a.Detail == "" {
				emptyAttrs++
			} else if err := checkValue(*o.DataType, a.Detail); err != nil {
				fail("attribute %q: %v", a.Attribute, err)
			}
		}
		// Variant families.
		switch {
		case p.VariantMaster == nil && len(p.VariantAttributes) == 0:
			if p.VariantAttributes != nil {
				fail("standalone product with variantAttributes %v (want null)", p.VariantAttributes)
			}
		case p.VariantMaster == nil:
			if !*p.Active {
				fail("inactive master")
			}
			f := &family{p: p, size: 1, combos: map[string]bool{}}
			for _, va := range p.VariantAttributes {
				if names[va] == "" {
					fail("variant attribute %q missing or empty", va)
				}
				f.values = append(f.values, map[string]bool{names[va]: true})
			}
			f.combos[variantKey(p.VariantAttributes, names)] = true
			families[p.SKU] = f
		default:
			f := families[*p.VariantMaster]
			if f == nil {
				fail("variantMaster %q is not an earlier master", *p.VariantMaster)
			}
			m := f.p
			if p.VariantAttributes != nil {
				fail("variant with variantAttributes %v", p.VariantAttributes)
			}
			if p.AttributeTemplate != m.AttributeTemplate || *p.Brand != *m.Brand || !slices.Equal(p.Categories, m.Categories) {
				fail("variant does not share template, brand and categories with %s", m.SKU)
			}
			if !strings.HasPrefix(p.Name, m.Name+" – ") {
				fail("variant name %q does not extend master name %q", p.Name, m.Name)
			}
			k := variantKey(m.VariantAttributes, names)
			if f.combos[k] {
				fail("variant repeats combination %q", k)
			}
			f.combos[k] = true
			for i, va := range m.VariantAttributes {
				if names[va] == "" {
					fail("variant attribute %q missing or empty", va)
				}
				f.values[i][names[va]] = true
			}
			f.size++
		}
	}
	expect(']')
	expect('}')

	if n != opt.Products {
		t.Fatalf("products: got %d, want %d", n, opt.Products)
	}
	// Standalone products and families each take one brand; all brands
	// appear once there are enough of them.
	units := n
	for _, f := range families {
		units -= f.size - 1
	}
	if want := min(opt.Brands, units); len(brands) != want {
		t.Errorf("distinct brands: got %d, want %d", len(brands), want)
	}
	for _, f := range families {
		if f.size < 2 || f.size > 8 {
			t.Errorf("family of %s has %d products, want 2..8", f.p.SKU, f.size)
		}
		for i, vals := range f.values {
			if len(vals) < 2 {
				t.Errorf("family of %s: variant attribute %q does not vary", f.p.SKU, f.p.VariantAttributes[i])
			}
		}
		inFamilies += f.size
	}
	share := func(part int) float64 { return float64(part) / float64(n) }
	t.Logf("%d products: %.1f%% in %d families, %.1f%% inactive, %.1f%% empty descriptions, %.2f%% empty of %d attributes",
		n, 100*share(inFamilies), len(families), 100*share(inactive), 100*share(emptyDescr),
		100*float64(emptyAttrs)/float64(attrs), attrs)
	if !shares {
		return
	}
	if s := share(inFamilies); s < 0.10 || s > 0.20 {
		t.Errorf("family share %.3f, want 0.10..0.20", s)
	}
	if s := share(inactive); s < 0.01 || s > 0.06 {
		t.Errorf("inactive share %.3f, want 0.01..0.06", s)
	}
	if s := share(emptyDescr); s < 0.005 || s > 0.08 {
		t.Errorf("empty description share %.3f, want a few percent", s)
	}
	if s := float64(emptyAttrs) / float64(attrs); s < 0.01 || s > 0.03 {
		t.Errorf("empty attribute share %.3f, want about 0.02", s)
	}
}

func checkTemplate(t *testing.T, tm tTemplate) {
	t.Helper()
	if n := len(tm.Options); n < 10 || n > 25 {
		t.Fatalf("template %q has %d options, want 10..25", tm.Name, n)
	}
	seen := map[string]bool{}
	for i, o := range tm.Options {
		if o.Priority != i+1 {
			t.Fatalf("template %q option %d has priority %d", tm.Name, i, o.Priority)
		}
		if o.Attribute == "" || seen[o.Attribute] {
			t.Fatalf("template %q: empty or duplicate option %q", tm.Name, o.Attribute)
		}
		seen[o.Attribute] = true
		if o.Unit != nil && *o.Unit == "" {
			t.Fatalf("template %q option %q: empty unit (want null)", tm.Name, o.Attribute)
		}
		if o.DataType == nil || !slices.Contains([]string{"STRING", "NUMBER", "BOOLEAN"}, *o.DataType) {
			t.Fatalf("template %q option %q: bad dataType %v", tm.Name, o.Attribute, o.DataType)
		}
	}
}

// checkValue verifies that a non-empty detail fits its option's data type.
func checkValue(dataType, v string) error {
	switch dataType {
	case "BOOLEAN":
		if v != "true" && v != "false" {
			return fmt.Errorf("boolean value %q", v)
		}
	case "NUMBER":
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return fmt.Errorf("number value %q", v)
		}
	}
	return nil
}

func variantKey(attrs []string, names map[string]string) string {
	var parts []string
	for _, a := range attrs {
		parts = append(parts, names[a])
	}
	return strings.Join(parts, "\x00")
}

func checkURL(t *testing.T, raw string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || !strings.HasSuffix(u.Hostname(), ".example") {
		t.Fatalf("URL %q is not an https URL on an .example host", raw)
	}
}

// validGTIN checks a 14-digit GTIN's GS1 check digit: weights 3,1,3,...
// from the rightmost digit of the payload.
func validGTIN(g string) bool {
	if !gtinRE.MatchString(g) {
		return false
	}
	sum := 0
	for i := 0; i < 13; i++ {
		d := int(g[i] - '0')
		if i%2 == 0 {
			d *= 3
		}
		sum += d
	}
	return (sum+int(g[13]-'0'))%10 == 0
}
