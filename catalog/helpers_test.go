package catalog

import (
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/hooks"
	_ "github.com/catalog-enrichment/enrichment/migrations"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// importClock stamps the tests' imports (mustImport, importFile): each
// reading is a second after the one before, starting a day ahead of the
// real time, so every import stamps an update time that no earlier write of
// the test has (PocketBase stamps a record saved in a test at the real
// time). Whether an import wrote a row then shows in its update time,
// without the test sleeping.
var importClock = struct {
	sync.Mutex
	last time.Time
}{last: time.Now().Add(24 * time.Hour)}

// nextImportTime is the next reading of importClock.
func nextImportTime() time.Time {
	importClock.Lock()
	defer importClock.Unlock()
	importClock.last = importClock.last.Add(time.Second)
	return importClock.last
}

// newApp is an empty app with the service's schema and hooks.
func newApp(tb testing.TB) *tests.TestApp {
	tb.Helper()
	app, err := tests.NewTestApp(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	hooks.Register(app)
	tb.Cleanup(app.Cleanup)
	return app
}

func newOrg(tb testing.TB, app core.App, name string) enrichment.Org {
	tb.Helper()
	id, err := store.New(app).Accounts().CreateOrg(name)
	if err != nil {
		tb.Fatal(err)
	}
	return enrichment.Org(strconv.FormatInt(id, 10))
}

func importFile(t *testing.T, app core.App, org enrichment.Org, name string) (Result, error) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Import(app, org, f, Options{Now: nextImportTime})
}

func mustImportFile(t *testing.T, app core.App, org enrichment.Org, name string) Result {
	t.Helper()
	res, err := importFile(t, app, org, name)
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
	return res
}

// productRow is a stored product with every column as SQLite returns it.
type productRow struct {
	ID                string         `db:"id"`
	Organization      string         `db:"organization"`
	SKU               string         `db:"sku"`
	ExternalID        string         `db:"externalId"`
	GTIN              string         `db:"gtin"`
	Name              string         `db:"name"`
	Slug              string         `db:"slug"`
	Description       string         `db:"description"`
	Active            bool           `db:"active"`
	AttributeTemplate string         `db:"attributeTemplate"`
	Brand             string         `db:"brand"`
	VariantMaster     string         `db:"variantMaster"`
	Attributes        string         `db:"attributes"`
	Categories        string         `db:"categories"`
	Images            string         `db:"images"`
	Files             string         `db:"files"`
	VariantAttributes sql.NullString `db:"variantAttributes"`
	Created           string         `db:"created"`
	Updated           string         `db:"updated"`
	ImportHash        string         `db:"importHash"`
}

// products returns org's products by SKU.
func products(t *testing.T, app core.App, org enrichment.Org) map[string]productRow {
	t.Helper()
	var rows []productRow
	err := app.DB().Select("*").From("products").Where(dbx.HashExp{"organization": string(org)}).All(&rows)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]productRow, len(rows))
	for _, r := range rows {
		out[r.SKU] = r
	}
	return out
}

// templateIDs maps org's template names to ids, and options ("Shoes/Color") to ids.
func templateIDs(t *testing.T, app core.App, org enrichment.Org) (templates, options map[string]string) {
	t.Helper()
	var rows []struct {
		ID        string `db:"id"`
		Name      string `db:"name"`
		Attribute string `db:"attribute"`
	}
	err := app.DB().NewQuery(`SELECT o.id, t.name, o.attribute FROM attribute_options o
		JOIN attribute_templates t ON t.id = o.template WHERE o.organization = {:org}`).
		Bind(dbx.Params{"org": string(org)}).All(&rows)
	if err != nil {
		t.Fatal(err)
	}
	options = map[string]string{}
	for _, r := range rows {
		options[r.Name+"/"+r.Attribute] = r.ID
	}
	var ts []struct {
		ID   string `db:"id"`
		Name string `db:"name"`
	}
	if err := app.DB().Select("id", "name").From("attribute_templates").
		Where(dbx.HashExp{"organization": string(org)}).All(&ts); err != nil {
		t.Fatal(err)
	}
	templates = map[string]string{}
	for _, r := range ts {
		templates[r.Name] = r.ID
	}
	return templates, options
}

// snapshot renders every row of the catalog tables, the revisions and the
// import's bookkeeping, to show that an import changed nothing.
func snapshot(t *testing.T, app core.App) string {
	t.Helper()
	var b strings.Builder
	for _, table := range []string{"attribute_templates", "attribute_options", "brands", "products", "_enrichment_seq",
		"revisions", "_enrichment_accepted_values", "_enrichment_generations"} {
		var rows []dbx.NullStringMap
		if err := app.DB().NewQuery("SELECT * FROM " + table).All(&rows); err != nil {
			t.Fatal(err)
		}
		lines := make([]string, len(rows))
		for i, r := range rows {
			var line strings.Builder
			for _, k := range slices.Sorted(maps.Keys(r)) {
				fmt.Fprintf(&line, "%s=%q ", k, r[k].String)
			}
			lines[i] = line.String()
		}
		slices.Sort(lines)
		fmt.Fprintf(&b, "%s: %d rows\n%s\n", table, len(rows), strings.Join(lines, "\n"))
	}
	return b.String()
}

func asCatalogError(t *testing.T, err error) *Error {
	t.Helper()
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("want a *catalog.Error, got %T %v", err, err)
	}
	return ce
}
