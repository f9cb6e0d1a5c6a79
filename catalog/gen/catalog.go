package gen

import (
	"github.com/catalog-enrichment/enrichment/catalog"

	"fmt"
	"math/rand/v2"
	"strings"
)

// pcgStream is the fixed second PCG word; Options.Seed is the first.
const pcgStream = 0x5ca1ab1e_c0ffee00

// template is an attribute template together with the specs behind its
// options (option i has priority i+1).
type template struct {
	kind    *productType
	specs   []*attrSpec
	variant []int // indices of options that can tell variants apart
	json    catalog.Template

	// Phrases for descriptions, computed once.
	noun      string   // "a running shoe"
	rangeName string   // "running shoes"
	lower     []string // option names in lower case: "heel drop"
	articled  []string // with article: "a heel drop"
}

// generator holds everything shared by all products: the random source,
// the templates and the brands, plus counters of what was emitted.
type generator struct {
	opt       Options
	rng       *rand.Rand
	templates []template
	brands    []catalog.Brand
	emitted   int // products written so far
	units     int // standalone products and families written so far
	codeMod   int // model numbers are unique modulo codeMod
	codeWidth int
	desc      descBuilder // scratch space for descriptions
}

func newGenerator(opt Options) *generator {
	g := &generator{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, pcgStream))}
	g.codeMod, g.codeWidth = 1_000_000, 6
	for g.codeMod < opt.Products {
		g.codeMod *= 10
		g.codeWidth++
	}
	g.templates = make([]template, opt.Templates)
	for i := range g.templates {
		g.templates[i] = g.newTemplate(i)
	}
	g.brands = g.newBrands(opt.Brands)
	return g
}

// newTemplate builds template i from its product type: the type's own
// attributes, Color, then generic attributes up to 10..25 options.
func (g *generator) newTemplate(i int) template {
	kind := &productTypes[i%len(productTypes)]
	name := kind.template
	if round := i / len(productTypes); round > 0 {
		name = fmt.Sprintf("%s %d", name, round+1)
	}
	n := 10 + g.rng.IntN(16)
	specs := make([]*attrSpec, 0, n)
	for j := 0; j < len(kind.attrs) && len(specs) < n-1; j++ {
		specs = append(specs, &kind.attrs[j])
	}
	specs = append(specs, &colorSpec)
	for _, j := range g.rng.Perm(len(genericAttrs)) {
		if len(specs) == n {
			break
		}
		specs = append(specs, &genericAttrs[j])
	}
	t := template{
		kind: kind, specs: specs, json: catalog.Template{Name: name, Active: ptr(true)},
		noun: withArticle(lowerWords(kind.noun)), rangeName: lowerWords(kind.template),
	}
	for p, s := range specs {
		t.lower = append(t.lower, lowerWords(s.name))
		t.articled = append(t.articled, withArticle(t.lower[p]))
		if s.variant {
			t.variant = append(t.variant, p)
		}
		searchable := s.variant
		switch s.typ {
		case typeString:
			searchable = searchable || g.rng.IntN(10) < 8
		case typeNumber:
			searchable = searchable || g.rng.IntN(10) < 3
		default:
			searchable = searchable || g.rng.IntN(10) < 2
		}
		opt := catalog.Option{
			Attribute:     s.name,
			Priority:      p + 1,
			DataType:      &s.typ,
			ShowOnWebsite: s.variant || g.rng.IntN(10) < 9,
			IsSearchable:  searchable,
		}
		if s.unit != "" {
			opt.Unit = &s.unit
		}
		t.json.Options = append(t.json.Options, opt)
	}
	return t
}

// newBrands draws n brands with unique names and slugs from the syllable tables.
func (g *generator) newBrands(n int) []catalog.Brand {
	brands := make([]catalog.Brand, 0, n)
	seen := make(map[string]bool, n)
	for len(brands) < n {
		name := ""
		for try := 0; ; try++ {
			name = brandHeads[g.rng.IntN(len(brandHeads))] + brandTails[g.rng.IntN(len(brandTails))]
			if g.rng.IntN(10) < 3 {
				name += " " + brandWords[g.rng.IntN(len(brandWords))]
			}
			if try >= 50 {
				name = fmt.Sprintf("%s %d", name, len(brands)+1)
			}
			if !seen[slugify(name)] {
				break
			}
		}
		slug := slugify(name)
		seen[slug] = true
		brands = append(brands, catalog.Brand{Name: name, Website: ptr("https://www." + slug + ".example"), Slug: ptr(slug)})
	}
	return brands
}

// slugify lowercases s and joins its ASCII letter and digit runs with '-'.
func slugify(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	gap := false
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if gap && b.Len() > 0 {
				b.WriteByte('-')
			}
			gap = false
			b.WriteRune(r)
		} else {
			gap = true
		}
	}
	return b.String()
}

// gtin returns a 14-digit GTIN: indicator 0, a per-brand company prefix,
// a per-product item reference and the GS1 check digit.
func gtin(brand, product int) string {
	payload := fmt.Sprintf("040%04d%06d", (brand*37+1000)%10000, product%1_000_000)
	return payload + string(rune('0'+gs1CheckDigit(payload)))
}

// gs1CheckDigit computes the GS1 mod-10 check digit of a digit string:
// weights 3,1,3,1... from the rightmost digit.
func gs1CheckDigit(digits string) int {
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if (len(digits)-1-i)%2 == 0 {
			d *= 3
		}
		sum += d
	}
	return (10 - sum%10) % 10
}

// lowerWords lowercases every word of s except acronyms such as "TV" or "USB-C".
func lowerWords(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if w != strings.ToUpper(w) || len(w) < 2 {
			words[i] = strings.ToLower(w)
		}
	}
	return strings.Join(words, " ")
}

// withArticle prefixes a lower-case noun phrase with "a" or "an".
func withArticle(noun string) string {
	switch {
	case noun == "headphones":
		return "a pair of headphones"
	case noun != "" && strings.ContainsRune("aeiou", rune(noun[0])):
		return "an " + noun
	default:
		return "a " + noun
	}
}

// ptr is a pointer to v, for the file format's optional fields.
func ptr[T any](v T) *T { return &v }
