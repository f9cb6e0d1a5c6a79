package catalog

import (
	"fmt"
	"strings"
	"testing"
)

// manyProducts is a products list long enough to be written in several
// batches before a bad product at index n.
func manyProducts(n int, bad string) string {
	var b strings.Builder
	b.WriteString(`{"products": [`)
	for i := range n {
		fmt.Fprintf(&b, "\n{\"sku\": \"BULK-%d\", \"externalId\": \"BULK-%d\"},", i, i)
	}
	b.WriteString("\n" + bad + "]}")
	return b.String()
}

func TestImportRefusesBadFiles(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Acme Retail")
	mustImportFile(t, app, org, "good.json") // stored: RUN (master), RUN-42-RED and RUN-43-BLUE (variants), TEE-1, MUG-1

	cases := []struct {
		name, file, path, msg string
		line                  int
	}{
		{"missing sku", `{"products": [{"name": "x"}]}`, "products[0].sku", "required", 1},
		{"blank sku", `{"products": [{"sku": "A"}, {"sku": "  "}]}`, "products[1].sku", "required", 1},
		{"sku too long", `{"products": [{"sku": "` + strings.Repeat("é", 201) + `"}]}`, "products[0].sku", "longer than 200", 1},
		{"template without name", "{\"attributeTemplates\": [\n{\"name\": \"Ok\"},\n{\"options\": []}]}", "attributeTemplates[1].name", "required", 3},
		{"option without attribute", `{"attributeTemplates": [{"name": "T", "options": [{"unit": "cm"}]}]}`, "attributeTemplates[0].options[0].attribute", "required", 1},
		{"duplicate option", `{"attributeTemplates": [{"name": "T", "options": [{"attribute": "A"}, {"attribute": "A"}]}]}`,
			"attributeTemplates[0].options[1].attribute", `duplicate attribute "A"`, 1},
		{"brand without name", `{"products": [{"sku": "A", "brand": {"website": "https://x.example"}}]}`, "products[0].brand.name", "required", 1},
		{"duplicate sku", "{\"products\": [\n{\"sku\": \"A\"},\n{\"sku\": \"A\"}]}", "products[1].sku", `duplicate SKU "A" (also products[0], line 2)`, 3},
		{"duplicate externalId", `{"products": [{"sku": "A", "externalId": "E"}, {"sku": "B", "externalId": "E"}]}`, "products[1].externalId", `duplicate externalId "E"`, 1},
		{"duplicate template", `{"attributeTemplates": [{"name": "T"}, {"name": "T"}]}`, "attributeTemplates[1].name", `duplicate template "T"`, 1},
		{"unknown template", `{"attributeTemplates": [], "products": [{"sku": "A", "attributeTemplate": "Nope"}]}`, "products[0].attributeTemplate", `no template named "Nope"`, 1},
		{"unknown template, products first", `{"products": [{"sku": "A", "attributeTemplate": "Nope"}]}`, "products[0].attributeTemplate", `no template named "Nope"`, 1},
		{"unknown variant master", `{"products": [{"sku": "A"}, {"sku": "B"}, {"sku": "C", "variantMaster": "X"}]}`, "products[2].variantMaster", `no product with SKU "X"`, 1},
		{"own master", `{"products": [{"sku": "A", "variantMaster": "A"}]}`, "products[0].variantMaster", "its own variant master", 1},
		{"master is a variant in the file", `{"products": [{"sku": "A", "variantMaster": "B"}, {"sku": "B", "variantMaster": "C"}, {"sku": "C"}]}`,
			"products[0].variantMaster", `"B" is itself a variant`, 1},
		{"master is a stored variant", `{"products": [{"sku": "A", "variantMaster": "RUN-42-RED"}]}`, "products[0].variantMaster", `"RUN-42-RED" is itself a variant`, 1},
		{"stored master becomes a variant", `{"products": [{"sku": "RUN", "externalId": "ERP-1", "variantMaster": "MUG-1"}]}`,
			"products[0].variantMaster", `master of stored variant`, 1},
		{"master renamed away", `{"products": [{"sku": "MUG-2", "externalId": "ERP-9"}, {"sku": "A", "variantMaster": "MUG-1"}]}`,
			"products[1].variantMaster", `no product with SKU "MUG-1"`, 1},
		{"sku of a stored product without externalId", `{"products": [{"sku": "TEE-1", "externalId": "ERP-9"}]}`, "products[0].sku",
			`SKU "TEE-1" belongs to another stored product`, 1},
		{"shared sku without externalId", "{\"products\": [\n{\"sku\": \"A\"},\n{\"sku\": \"A\", \"externalId\": \"E\"}]}", "products[0].sku",
			`duplicate SKU "A" (also products[1], line 3): products may share a SKU only when each has its own externalId`, 2},
		{"shared sku names a master", `{"products": [{"sku": "S", "externalId": "E1"}, {"sku": "S", "externalId": "E2"}, {"sku": "V", "variantMaster": "S"}]}`,
			"products[2].variantMaster", `SKU "S" is shared by several products, so it cannot name a variant master`, 1},
		{"sku shared with a stored product names a master", `{"products": [{"sku": "MUG-1", "externalId": "ERP-77"}, {"sku": "V", "variantMaster": "MUG-1"}]}`,
			"products[1].variantMaster", `SKU "MUG-1" is shared by several products`, 1},
		{"a stored master's sku shared", `{"products": [{"sku": "RUN", "externalId": "ERP-77"}]}`,
			"products[0].sku", `SKU "RUN" is the SKU of the master of stored variant`, 1},
		{"two products for one stored", `{"products": [{"sku": "MUG-1"}, {"sku": "MUG-X", "externalId": "ERP-9"}]}`, "products[1]", "same stored product", 1},
		{"active not a boolean", "{\"products\": [\n  {\"sku\": \"A\", \"active\": \"yes\"}]}", "products[0].active", "want a boolean, got a string", 2},
		{"sku a number", `{"products": [{"sku": 12}]}`, "products[0].sku", "want a string, got a number", 1},
		{"attributes an object", `{"products": [{"sku": "A", "attributes": {}}]}`, "products[0].attributes", "want an array, got an object", 1},
		{"detail a number", `{"products": [{"sku": "A", "attributes": [{"attribute": "W", "detail": 4}]}]}`, "products[0].attributes[0].detail", "want a string", 1},
		{"brand a string", `{"products": [{"sku": "A", "brand": "Acme"}]}`, "products[0].brand", "want an object, got a string", 1},
		{"categories of numbers", `{"products": [{"sku": "A", "categories": [1]}]}`, "products[0].categories[0]", "want a string", 1},
		{"products an object", `{"products": {}}`, "products", "want an array, got an object (line 1, column 14)", 1},
		{"templates a string", `{"attributeTemplates": "Shoes"}`, "attributeTemplates", "want an array, got a string", 1},
		{"priority a string", `{"attributeTemplates": [{"name": "T", "options": [{"attribute": "A", "priority": "1"}]}]}`,
			"attributeTemplates[0].options[0].priority", "want an integer, got a string", 1},
		{"bad product after many good ones", manyProducts(1200, `{"sku": ""}`), "products[1200].sku", "required", 1202},
		{"unknown master after many good ones", manyProducts(1200, `{"sku": "V", "variantMaster": "NONE"}`), "products[1200].variantMaster", "no product", 1202},
		// the first of the pair was written batches before: the stored rows say so
		{"duplicate sku batches apart", manyProducts(1200, `{"sku": "BULK-3"}`), "products[1200].sku",
			`duplicate SKU "BULK-3" (also products[3], line 5)`, 1202},
		{"duplicate externalId batches apart", manyProducts(1200, `{"sku": "X", "externalId": "BULK-7"}`), "products[1200].externalId",
			`duplicate externalId "BULK-7" (also products[7], line 9)`, 1202},
		{"sku shared batches after it named a master", manyProducts(1200, `{"sku": "V", "variantMaster": "BULK-5"}, {"sku": "BULK-5", "externalId": "E-X"}`),
			"products[1200].variantMaster", `SKU "BULK-5" is shared by several products`, 1202},
		{"a stored product matched batches apart", strings.Replace(manyProducts(1200, `{"sku": "MUG-X", "externalId": "ERP-9"}`),
			`[`, `[{"sku": "MUG-1"},`, 1), "products[1201]", "as products[0]", 1202},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, app)
			_, err := Import(app, org, strings.NewReader(c.file), Options{})
			ce := asCatalogError(t, err)
			t.Log(ce)
			if ce.Path != c.path || !strings.Contains(ce.Error(), c.msg) || ce.Line != c.line {
				t.Errorf("got path %q line %d msg %q; want path %q line %d msg containing %q", ce.Path, ce.Line, ce.Msg, c.path, c.line, c.msg)
			}
			if !strings.HasPrefix(ce.Error(), c.path+": ") {
				t.Errorf("Error() %q should start with the path", ce.Error())
			}
			if after := snapshot(t, app); after != before {
				t.Errorf("the database changed:\nbefore %s\nafter %s", before, after)
			}
		})
	}
}

func TestImportRefusesMalformedJSON(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Acme Retail")
	before := snapshot(t, app)

	_, err := importFile(t, app, org, "malformed.json")
	ce := asCatalogError(t, err)
	if ce.Line != 6 || ce.Column != 36 || !strings.HasPrefix(ce.Error(), "line 6, column 36: invalid character") ||
		!strings.Contains(ce.Error(), "products[2]") {
		t.Errorf("got %q (line %d, column %d)", ce.Error(), ce.Line, ce.Column)
	}

	for _, c := range []struct{ name, file, want string }{
		{"empty", "", "line 1, column 1: the file is empty"},
		{"not an object", "\n  [1, 2]", "line 2, column 3: a catalog file is a JSON object"},
		{"truncated", "{\"products\": [\n{\"sku\": \"A\"}", "line 2, column 13: unexpected end of file"},
		{"trailing data", "{\"products\": []}\n{}", "line 2, column 1: unexpected data after the catalog object"},
		{"duplicate key", `{"products": [{"sku": "A", "sku": "B"}]}`, "line 1, column 28: duplicate object member name in products[0].sku"},
		{"invalid UTF-8", "{\"products\": [{\"sku\": \"\xff\"}]}", "line 1, column 24: invalid UTF-8"},
		{"after a byte-order mark, columns past it", "\xef\xbb\xbf{\"products\": [{\"sku\": \"\xff\"}]}", "line 1, column 24: invalid UTF-8"},
	} {
		_, err := Import(app, org, strings.NewReader(c.file), Options{})
		ce := asCatalogError(t, err)
		t.Log(ce)
		if !strings.HasPrefix(ce.Error(), c.want) {
			t.Errorf("%s: got %q, want it to start with %q", c.name, ce.Error(), c.want)
		}
	}
	if after := snapshot(t, app); after != before {
		t.Errorf("the database changed")
	}
}

// A JSON catalog saved with a UTF-8 byte-order mark (Windows editors) is
// read as without it, as a Shopify CSV is.
func TestImportReadsPastAByteOrderMark(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Acme Retail")
	file := "\xef\xbb\xbf" + `{"products": [{"sku": "BOM-1", "name": "Marked", "slug": "marked", "active": true}]}`
	res, err := Import(app, org, strings.NewReader(file), Options{})
	if err != nil || res.Created != 1 {
		t.Fatalf("import after a BOM: %+v %v", res, err)
	}
}

// A file nested thousands of levels deep is refused with a message of a
// line, not one that names every level.
func TestImportRefusesDeepNestingBriefly(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Acme Retail")
	file := `{"products": [{"sku": "A", "foo": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}]}`
	_, err := Import(app, org, strings.NewReader(file), Options{})
	ce := asCatalogError(t, err)
	if msg := ce.Error(); !strings.Contains(msg, "exceeded max depth") || !strings.Contains(msg, "levels…") || len(msg) > 300 {
		t.Errorf("got %d characters: %.400s", len(msg), msg)
	}
}
