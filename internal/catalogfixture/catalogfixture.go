// Package catalogfixture gives tests and benchmarks that need a catalog of
// a realistic size an empty app (fixture.Empty) with one organization whose
// catalog is a generated one (catalog/gen's Bench options), imported by
// catalog.Import.
package catalogfixture

import (
	"bytes"
	"sync"
	"testing"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tests"
)

// Catalog is an app with one organization and its imported catalog.
type Catalog struct {
	App   *tests.TestApp
	Store *store.Store
	Org   enrichment.Org
	SKUs  []string // the active products', in numeric id order
}

// New imports a generated catalog of products products into a new
// organization named name of an empty app, which is cleaned up with tb.
func New(tb testing.TB, name string, products int) Catalog {
	tb.Helper()
	file, err := generated(products)
	if err != nil {
		tb.Fatalf("generate a catalog of %d products: %v", products, err)
	}
	app := fixture.Empty(tb)
	st := store.New(app)
	id, err := st.Accounts().CreateOrg(name)
	if err != nil {
		tb.Fatal(err)
	}
	c := Catalog{App: app, Store: st, Org: enrichment.Org(store.FormatID(id))}
	if _, err := catalog.Import(app, c.Org, bytes.NewReader(file), catalog.Options{}); err != nil {
		tb.Fatalf("import %d generated products: %v", products, err)
	}
	err = app.DB().Select("sku").From("products").
		Where(dbx.HashExp{"organization": string(c.Org), "active": true}).
		OrderBy("CAST(id AS INTEGER)").Column(&c.SKUs)
	if err != nil {
		tb.Fatalf("active SKUs: %v", err)
	}
	return c
}

// files are the generated catalogs by size: a test process that imports
// one size several times (each benchmark of a file, say) generates it once.
var files = struct {
	sync.Mutex
	bySize map[int][]byte
}{bySize: map[int][]byte{}}

func generated(products int) ([]byte, error) {
	files.Lock()
	defer files.Unlock()
	if file, ok := files.bySize[products]; ok {
		return file, nil
	}
	var buf bytes.Buffer
	opt := gen.Bench()
	opt.Products = products
	if err := gen.Write(&buf, opt); err != nil {
		return nil, err
	}
	files.bySize[products] = buf.Bytes()
	return buf.Bytes(), nil
}
