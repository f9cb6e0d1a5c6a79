package gen

import (
	"github.com/catalog-enrichment/enrichment/catalog"

	"fmt"
	"slices"
	"strings"
)

// Shares of the catalog, in parts per 10 000.
const (
	familyChance   = 341 // a unit is a family: with sizes 2..8 (mean 5) ~15% of products
	inactiveChance = 300 // a standalone product or variant is inactive
	emptyDetail    = 200 // an attribute value is left empty
	emptyDescr     = 300 // a product has no description
)

// unit is what the products of one family (or one standalone product) share.
type unit struct {
	tmpl       *template
	brand      int
	base       string   // product name without variant suffix
	categories []string // shared by the whole family
	chosen     []int    // option indices carried, ascending
	values     []string // value per chosen option ("" for variant attributes)
	varOpts    []int    // option indices of the variant attributes
	combos     [][]string
}

// nextUnit generates the next standalone product or variant family (master
// first) and advances the counters.
func (g *generator) nextUnit() []catalog.Product {
	rng := g.rng
	u := unit{}
	ti, bi := g.units, g.units
	if ti >= len(g.templates) {
		ti = rng.IntN(len(g.templates))
	}
	if bi >= len(g.brands) {
		bi = rng.IntN(len(g.brands))
	}
	u.tmpl, u.brand = &g.templates[ti], bi
	size := 1
	if left := g.opt.Products - g.emitted; left >= 2 && rng.IntN(10_000) < familyChance {
		size = min(2+rng.IntN(7), left)
		size = g.pickVariants(&u, size)
	}
	u.base = g.productName(u.tmpl.kind, g.brands[bi].Name)
	u.categories = g.categories(u.tmpl.kind.path)
	g.pickAttributes(&u)

	out := make([]catalog.Product, size)
	for j := range out {
		out[j] = g.product(&u, j, &out[0])
	}
	g.units++
	return out
}

// pickVariants chooses one or two variant attributes of the template and
// size distinct value combinations for them; it returns the family size,
// reduced if the template cannot offer that many combinations.
func (g *generator) pickVariants(u *unit, size int) int {
	rng := g.rng
	cand := slices.Clone(u.tmpl.variant)
	rng.Shuffle(len(cand), func(i, j int) { cand[i], cand[j] = cand[j], cand[i] })
	want := 1
	if len(cand) > 1 && rng.IntN(10) < 6 {
		want = 2
	}
	varOpts := cand[:want]
	capacity := 1
	for _, o := range varOpts {
		capacity *= len(u.tmpl.specs[o].values)
	}
	for capacity < size && len(varOpts) < len(cand) {
		varOpts = cand[:len(varOpts)+1]
		capacity *= len(u.tmpl.specs[varOpts[len(varOpts)-1]].values)
	}
	size = min(size, capacity)
	// Color reads best first ("Red / 42"); the rest keep template order.
	slices.SortFunc(varOpts, func(a, b int) int {
		ca, cb := u.tmpl.specs[a] == &colorSpec, u.tmpl.specs[b] == &colorSpec
		switch {
		case ca && !cb:
			return -1
		case cb && !ca:
			return 1
		}
		return a - b
	})

	// How many values each attribute contributes: the product must reach size.
	counts := make([]int, len(varOpts))
	rest := size
	for i, o := range varOpts {
		n := len(u.tmpl.specs[o].values)
		if i == len(varOpts)-1 {
			counts[i] = min(n, rest)
		} else {
			counts[i] = min(n, 2+rng.IntN(2), rest)
		}
		rest = (rest + counts[i] - 1) / counts[i]
	}
	for i := len(varOpts) - 1; i >= 0 && mul(counts) < size; i-- {
		counts[i] = len(u.tmpl.specs[varOpts[i]].values)
	}

	// An attribute with a single value would not tell the variants apart.
	var lists [][]string
	u.varOpts = nil
	for i, o := range varOpts {
		if counts[i] > 1 {
			u.varOpts = append(u.varOpts, o)
			lists = append(lists, g.pickValues(u.tmpl.specs[o], counts[i]))
		}
	}
	var walk func(prefix []string, depth int)
	walk = func(prefix []string, depth int) {
		if len(u.combos) == size {
			return
		}
		if depth == len(lists) {
			u.combos = append(u.combos, slices.Clone(prefix))
			return
		}
		for _, v := range lists[depth] {
			walk(append(prefix, v), depth+1)
		}
	}
	walk(nil, 0)
	return size
}

func mul(xs []int) int {
	p := 1
	for _, x := range xs {
		p *= x
	}
	return p
}

// pickValues returns n distinct values of s: a run of consecutive sizes for
// ordered specs, a random selection otherwise.
func (g *generator) pickValues(s *attrSpec, n int) []string {
	if s.ordered {
		start := g.rng.IntN(len(s.values) - n + 1)
		return s.values[start : start+n]
	}
	idx := g.rng.Perm(len(s.values))[:n]
	out := make([]string, n)
	for i, k := range idx {
		out[i] = s.values[k]
	}
	return out
}

// pickAttributes chooses 8..20 options of the template (variant attributes
// always included) and draws the values the family shares.
func (g *generator) pickAttributes(u *unit) {
	rng := g.rng
	n := len(u.tmpl.specs)
	k := min(8+rng.IntN(13), n)
	chosen := slices.Clone(u.varOpts)
	for _, o := range rng.Perm(n) {
		if len(chosen) >= k {
			break
		}
		if !slices.Contains(u.varOpts, o) {
			chosen = append(chosen, o)
		}
	}
	slices.Sort(chosen)
	u.chosen = chosen
	u.values = make([]string, len(chosen))
	for i, o := range chosen {
		if slices.Contains(u.varOpts, o) {
			continue
		}
		u.values[i] = u.tmpl.specs[o].value(rng)
		if rng.IntN(10_000) < emptyDetail {
			u.values[i] = ""
		}
	}
}

// productName builds "<Brand> <Line> [<Tier>] <Noun> <CODE>-<number>"; the
// model number is a bijection of the unit index, so names are unique.
func (g *generator) productName(kind *productType, brand string) string {
	line := lineNames[g.rng.IntN(len(lineNames))]
	if tier := lineTiers[g.rng.IntN(len(lineTiers))]; tier != "" {
		line += " " + tier
	}
	model := (g.units*7919 + 104_729) % g.codeMod
	return fmt.Sprintf("%s %s %s %s-%0*d", brand, line, kind.noun, kind.code, g.codeWidth, model)
}

// categories picks 1..3 names of the path, always including the leaf.
func (g *generator) categories(path []string) []string {
	leaf := path[len(path)-1]
	switch g.rng.IntN(4) {
	case 0:
		return []string{leaf}
	case 1:
		return []string{path[0], leaf}
	case 2:
		return []string{path[len(path)-2], leaf}
	default:
		return slices.Clone(path)
	}
}

// product builds member j of the unit's family (j == 0 is the master, or the
// standalone product).
func (g *generator) product(u *unit, j int, master *catalog.Product) catalog.Product {
	rng := g.rng
	g.emitted++
	id := g.emitted
	sku := fmt.Sprintf("SKU-%06d", id)
	p := catalog.Product{
		SKU:               sku,
		ExternalID:        fmt.Sprintf("ERP-%06d", id),
		GTIN:              gtin(u.brand, id),
		Name:              u.base,
		Active:            ptr(true),
		AttributeTemplate: u.tmpl.json.Name,
		Brand:             &g.brands[u.brand],
		Categories:        u.categories,
		Files:             []string{},
	}
	p.Attributes = make([]catalog.Attribute, len(u.chosen))
	for i, o := range u.chosen {
		p.Attributes[i] = catalog.Attribute{Attribute: u.tmpl.specs[o].name, Detail: u.values[i]}
	}
	if len(u.combos) > 0 {
		label := make([]string, len(u.varOpts))
		for i, o := range u.varOpts {
			v := u.combos[j][i]
			p.Attributes[slices.Index(u.chosen, o)].Detail = v
			label[i] = u.tmpl.specs[o].withUnit(v)
		}
		if j == 0 {
			names := make([]string, len(u.varOpts))
			for i, o := range u.varOpts {
				names[i] = u.tmpl.specs[o].name
			}
			p.VariantAttributes = &names
		} else {
			p.Name = u.base + " – " + strings.Join(label, " / ")
			p.VariantMaster = master.SKU
		}
	}
	if j > 0 || len(u.combos) == 0 {
		p.Active = ptr(rng.IntN(10_000) >= inactiveChance)
	}
	p.Slug = slugify(p.Name)
	if rng.IntN(10_000) >= emptyDescr {
		p.Description = g.describe(u, &p)
	}
	p.Images = make([]string, 1+rng.IntN(5))
	for i := range p.Images {
		p.Images[i] = g.imageURL(sku, i+1)
	}
	first := rng.IntN(len(docKinds))
	for i := range rng.IntN(3) {
		p.Files = append(p.Files, fmt.Sprintf("https://docs.example/%s/%s.pdf", docKinds[(first+i)%len(docKinds)], sku))
	}
	return p
}

// imageURL is the URL of the n-th image (from 1) of the product sku.
func (g *generator) imageURL(sku string, n int) string {
	if g.opt.ImageBase == "" {
		return fmt.Sprintf(placeholderImage, sku, n)
	}
	return fmt.Sprintf("%s%s-%d.svg", g.opt.ImageBase, sku, n)
}
