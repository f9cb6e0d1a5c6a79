package routes_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/pocketbase/pocketbase/tests"
)

const lookupURL = "/api/enrichment/products/skus"

func TestLookupBySKU(t *testing.T) {
	f := fixture.Get(t)
	key := f.A.Keys["read"]
	found := func(total int, skus ...string) func(testing.TB, *tests.TestApp, []byte) {
		return func(t testing.TB, _ *tests.TestApp, body []byte) {
			p := decode[page](t, body)
			if got := p.skus(); !slices.Equal(got, skus) {
				t.Errorf("items = %v, want %v", got, skus)
			}
			if p.Page != 1 || p.PageSize != total || p.TotalElements != len(skus) || p.TotalPages != 1 {
				t.Errorf("envelope = page %d, pageSize %d, totalElements %d, totalPages %d; want 1, %d, %d, 1",
					p.Page, p.PageSize, p.TotalElements, p.TotalPages, total, len(skus))
			}
		}
	}
	post := func(name, body string, status int, content ...string) call {
		return call{name: name, method: http.MethodPost, url: lookupURL, key: key, body: body, status: status, content: content}
	}
	bulk := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("BULK-%04d", i+1)
		}
		return s
	}
	skuList := func(n int) string { return `{"skus":["` + strings.Join(bulk(n), `","`) + `"]}` }
	withCheck := func(c call, check func(testing.TB, *tests.TestApp, []byte)) call {
		c.check = check
		return c
	}
	run(t, f, []call{
		withCheck(post("known and unknown SKUs", `{"skus":["SKU-M-RED","NOPE","SKU-1"]}`, 200), found(3, "SKU-1", "SKU-M-RED")),
		withCheck(post("the variant family comes in full", `{"skus":["SKU-M"]}`, 200,
			`"variantAttributes":["Color","Size"]`, `"sku":"SKU-M-BLUE"`), found(1, "SKU-M")),
		withCheck(post("inactive products are not found", `{"skus":["SKU-OLD","SKU-M-GONE"]}`, 200), found(2)),
		withCheck(post("a shared SKU returns every match", `{"skus":["SKU-DUP"]}`, 200), found(1, "SKU-DUP", "SKU-DUP")),
		withCheck(post("a repeated SKU counts in pageSize only", `{"skus":["SKU-1","SKU-1"]}`, 200), found(2, "SKU-1")),
		withCheck(post("50 SKUs is the maximum", skuList(50), 200), found(50, bulk(50)...)),
		withCheck(call{name: "another organization's SKU is not found", method: http.MethodPost, url: lookupURL,
			key: f.B.Keys["read"], body: `{"skus":["SKU-M","SKU-1"]}`, status: 200,
			content: []string{fmt.Sprintf(`"id":%d`, f.B.Products["SKU-1"]), "Beta drill"}}, found(2, "SKU-1")),
		post("51 SKUs", skuList(51), 400, `"message":"More than 50 items requested."`),
		post("empty list", `{"skus":[]}`, 400, `"message":"A list of product numbers is required."`),
		post("no skus field", `{}`, 400, "A list of product numbers is required."),
		post("null skus", `{"skus":null}`, 400, "A list of product numbers is required."),
		post("skus not a list", `{"skus":"SKU-1"}`, 400, `"skus":{"code":"validation_invalid_type"`),
		post("a SKU not a string", `{"skus":["SKU-1",7]}`, 400, `"skus.1":{`),
		post("not JSON", `skus=SKU-1`, 400, "not valid JSON"),
		post("truncated JSON", `{"skus":["SKU-1"`, 400, "not valid JSON"),
		post("empty body", ``, 400, "must be a JSON object"),
		post("a JSON array", `["SKU-1"]`, 400, "must be a JSON object"),
		post("a member twice", `{"skus":["SKU-1"],"skus":["SKU-2"]}`, 400, "names a member twice"),
	})
}
