package catalog

import (
	"encoding/json/v2"
	"fmt"
	"slices"
)

// The Shopify CSV export writes every attribute that is not one of its
// family's options as a product metafield column, "Label
// (product.metafields.NS.KEY)": an attribute imported from such a column
// under the NS.KEY and label it came from (products.shopify), any other
// under custom.KEY (customKey) and its own name. A column is one NS.KEY,
// whichever products fill it.

// exportMetafield is one metafield column of the export.
type exportMetafield struct {
	label, key string
}

// header is the column's header cell.
func (m exportMetafield) header() string {
	return m.label + " (product.metafields." + m.key + ")"
}

// metafieldOf is the column of attribute name in a product that remembers
// mem (nil: nothing).
func metafieldOf(mem *shopifyMemory, name string) exportMetafield {
	if label, key, ok := mem.metafieldKey(name); ok {
		return exportMetafield{label: label, key: key}
	}
	return exportMetafield{label: name, key: customKey(name)}
}

// metafieldOrder lists the metafield columns that some product fills, in
// an order that keeps every product's own order of them where the products
// agree (the columns of the Shopify file they came from, say): ordered by
// precedence, ties by first appearance. A column's label is the one its
// first product gives.
func metafieldOrder(r *CatalogReader) ([]exportMetafield, error) {
	index := map[string]int{} // key → first appearance
	var columns []exportMetafield
	after := map[[2]int]bool{} // a column directly followed by another in some product
	err := r.EachAttributeList(func(raw, variantAttributes, shopify []byte) error {
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
		mem, err := decodeShopifyMemory(shopify)
		if err != nil {
			return err
		}
		prev := -1
		for _, a := range attrs {
			if slices.Contains(options, a.Attribute) {
				continue
			}
			m := metafieldOf(mem, a.Attribute)
			i, ok := index[m.key]
			if !ok {
				i = len(columns)
				index[m.key] = i
				columns = append(columns, m)
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
	order := precedenceOrder(len(columns), after)
	out := make([]exportMetafield, len(order))
	for k, i := range order {
		out[k] = columns[i]
	}
	return out, nil
}

// precedenceOrder sorts n items (0..n-1) so that each edge's first item
// comes before its second (Kahn's sort), the earliest item first among the
// ready ones; a cycle (products that disagree) is broken at its earliest
// item.
func precedenceOrder(n int, after map[[2]int]bool) []int {
	in := make([]int, n)
	next := make([][]int, n)
	for e := range after {
		next[e[0]] = append(next[e[0]], e[1])
		in[e[1]]++
	}
	done := make([]bool, n)
	out := make([]int, 0, n)
	for len(out) < n {
		pick := -1
		for i := range n {
			if !done[i] && in[i] == 0 {
				pick = i
				break
			}
		}
		if pick < 0 {
			for i := range n {
				if !done[i] {
					pick = i
					break
				}
			}
		}
		done[pick] = true
		out = append(out, pick)
		for _, j := range next[pick] {
			in[j]--
		}
	}
	return out
}
