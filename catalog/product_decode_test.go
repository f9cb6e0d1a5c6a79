package catalog_test

import (
	"bytes"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"reflect"
	"testing"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/store"
)

// checkDecodeProduct holds catalog.DecodeProduct to json.Unmarshal for one product
// whose syntax is valid: when it decodes, it decodes the same.
func checkDecodeProduct(t *testing.T, raw []byte) (fast bool) {
	t.Helper()
	var fastP, slowP catalog.Product
	if !catalog.DecodeProduct(raw, &fastP) {
		return false
	}
	if err := json.Unmarshal(raw, &slowP); err != nil {
		t.Fatalf("decodeProduct took %s, which json.Unmarshal refuses: %v", raw, err)
	}
	if !reflect.DeepEqual(fastP, slowP) {
		t.Fatalf("%s\ndecodeProduct: %#v\njson.Unmarshal: %#v", raw, fastP, slowP)
	}
	// and the import writes string arrays as json.Marshal would
	for _, v := range [][]string{fastP.Categories, fastP.Images, fastP.Files, {fastP.SKU, fastP.Name}} {
		want, _ := json.Marshal(v)
		if got, err := store.StringsJSON(v); err != nil || got != string(want) {
			t.Fatalf("StringsJSON(%q) = %s %v, json.Marshal: %s", v, got, err, want)
		}
	}
	return true
}

func TestDecodeProductAsUnmarshal(t *testing.T) {
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Options{Products: 2000, Templates: 5, Brands: 10, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	var file struct {
		Products []jsontext.Value `json:"products"`
	}
	if err := json.Unmarshal(buf.Bytes(), &file); err != nil {
		t.Fatal(err)
	}
	for _, raw := range file.Products {
		if !checkDecodeProduct(t, raw) {
			t.Fatalf("a generated product takes the slow path: %s", raw)
		}
	}
	for _, c := range []struct {
		raw  string
		fast bool
	}{
		{`{"sku": "A\u00e9\n\"", "unknown": {"x": [1, "]}", {"y": null}], "z": -1.5e3}, "name": null, "brand": {"name": "B", "slug": null}}`, true},
		{`{"sku": "A", "categories": [], "images": null, "variantAttributes": [], "attributes": [{"attribute": "C", "extra": true}]}`, true},
		{` { "sku" : "A" , "active" : false , "files" : [ "x" , "y" ] } `, true},
		{`{"s\u006bu": "escaped name", "n\u0061me" : "another"}`, true},
		{`{"categories": ["<a href=\"x\">&amp;</a>", "\u2028\u2029", "\u0001\t\ud83d\ude00", "\/"]}`, true},
		{`{"SKU": "case matters"}`, true},
		{`{"sku": 12}`, false},
		{`{"active": "yes"}`, false},
		{`{"categories": [null]}`, false},
		{`{"attributes": [null]}`, false},
		{`[]`, false},
	} {
		if fast := checkDecodeProduct(t, []byte(c.raw)); fast != c.fast {
			t.Errorf("%s: fast %v, want %v", c.raw, fast, c.fast)
		}
	}
}

func FuzzDecodeProduct(f *testing.F) {
	f.Add([]byte(`{"sku": "A", "externalId": "E", "active": true, "attributes": [{"attribute": "C", "detail": "R"}], "brand": {"name": "B", "website": null}, "files": ["f"], "variantAttributes": null}`))
	f.Add([]byte(`{"sku": "\u0041\\", "x": {"y": ["}", 1, {"z": false}]}, "images": []}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !jsontext.Value(raw).IsValid() {
			return // reading refuses it before any worker sees it
		}
		checkDecodeProduct(t, raw)
	})
}
