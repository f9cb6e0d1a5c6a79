package catalog

import (
	"fmt"
	"strings"
	"testing"
)

// bulkFile is a products list in several batches: filler products, then
// last, the product that the test is about, in a later batch than first,
// which leads the file.
func bulkFile(first, last string) string {
	var b strings.Builder
	b.WriteString("{\"products\": [\n" + first)
	for i := range batchSize + 10 {
		fmt.Fprintf(&b, ",\n{\"sku\": \"FILL-%d\", \"externalId\": \"FILL-%d\"}", i, i)
	}
	b.WriteString(",\n" + last + "]}")
	return b.String()
}

// An import into an organization without products asks the database only
// about keys it wrote itself; the file's checks across batches hold as
// in any other import.
func TestFirstImportChecksAcrossBatches(t *testing.T) {
	app := newApp(t)
	lastLine := batchSize + 10 + 2 + 1 // the "products" line, first, the fillers, last
	refused := []struct {
		name, first, last, path, msg string
	}{
		{"duplicate sku", `{"sku": "A"}`, `{"sku": "A"}`, fmt.Sprintf("products[%d].sku", batchSize+11), `duplicate SKU "A" (also products[0], line 2)`},
		{"duplicate externalId", `{"sku": "A", "externalId": "E"}`, `{"sku": "B", "externalId": "E"}`,
			fmt.Sprintf("products[%d].externalId", batchSize+11), `duplicate externalId "E" (also products[0], line 2)`},
		{"a filler's externalId", `{"sku": "A"}`, `{"sku": "B", "externalId": "FILL-3"}`,
			fmt.Sprintf("products[%d].externalId", batchSize+11), `duplicate externalId "FILL-3" (also products[4], line 6)`},
		{"shared sku naming a master", `{"sku": "S", "externalId": "E1"}`, `{"sku": "S", "externalId": "E2"}, {"sku": "V", "variantMaster": "S"}`,
			fmt.Sprintf("products[%d].variantMaster", batchSize+12), `SKU "S" is shared by several products`},
		{"master is a variant", `{"sku": "M", "variantMaster": "FILL-0"}`, `{"sku": "V", "variantMaster": "M"}`,
			fmt.Sprintf("products[%d].variantMaster", batchSize+11), `"M" is itself a variant`},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			org := newOrg(t, app, c.name)
			before := snapshot(t, app)
			_, err := Import(app, org, strings.NewReader(bulkFile(c.first, c.last)), Options{})
			ce := asCatalogError(t, err)
			if ce.Path != c.path || !strings.Contains(ce.Msg, c.msg) {
				t.Errorf("got %s: %s (line %d), want %s: %s", ce.Path, ce.Msg, ce.Line, c.path, c.msg)
			}
			if c.name != "shared sku naming a master" && ce.Line != lastLine {
				t.Errorf("line %d, want %d", ce.Line, lastLine)
			}
			if snapshot(t, app) != before {
				t.Errorf("the refused file changed the database")
			}
		})
	}

	t.Run("accepted", func(t *testing.T) {
		org := newOrg(t, app, "accepted")
		file := bulkFile(`{"sku": "S", "externalId": "E1"}, {"sku": "M"}`,
			`{"sku": "S", "externalId": "E2"}, {"sku": "V", "variantMaster": "M", "variantAttributes": ["Size"]}`)
		res := mustImport(t, app, org, file, Options{})
		if res.Created != batchSize+14 {
			t.Errorf("created %d, want %d", res.Created, batchSize+14)
		}
		ps := products(t, app, org)
		if ps["V"].VariantMaster != ps["M"].ID || ps["M"].ID == "" {
			t.Errorf("V: %+v, M: %+v", ps["V"], ps["M"])
		}
		// the same file again finds every product it wrote the first time
		snap := snapshot(t, app)
		if res := mustImport(t, app, org, file, Options{}); res.Unchanged != batchSize+14 {
			t.Errorf("the same file again: %+v", res)
		}
		if snapshot(t, app) != snap {
			t.Errorf("the same file again wrote")
		}
	})
}

// The first import's filter never forgets a key, across its growth, and
// rarely claims one it was not given.
func TestWrittenKeys(t *testing.T) {
	w := newWrittenKeys()
	const n = 3*bloomFirst - 7 // a filter of bloomFirst keys, then one of twice that
	for i := range n {
		w.add(fmt.Sprintf("SKU-%d", i))
	}
	if len(w.filters) != 2 {
		t.Errorf("%d filters for %d keys, want 2", len(w.filters), n)
	}
	for i := range n {
		if !w.mayHave(fmt.Sprintf("SKU-%d", i)) {
			t.Fatalf("SKU-%d forgotten", i)
		}
	}
	claimed := 0
	for i := range n {
		if w.mayHave(fmt.Sprintf("OTHER-%d", i)) {
			claimed++
		}
	}
	if claimed > n/500 {
		t.Errorf("%d of %d keys never added are claimed", claimed, n)
	}
	if w.mayHave("") || len(w.keep([]string{"", "SKU-1", "NOPE"})) != 1 {
		t.Errorf("keep")
	}
}
