package cmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/hooks"
	_ "github.com/catalog-enrichment/enrichment/migrations"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
	"github.com/spf13/cobra"
)

// importRun is one run of the import command as a user would type it.
type importRun struct {
	stdout, stderr string
	err            error
}

// runImportCommand runs args on a root command holding the import command,
// as the binary's root does.
func runImportCommand(app core.App, stdin io.Reader, args ...string) importRun {
	c := &cobra.Command{Use: "enrichment", SilenceUsage: true}
	c.AddCommand(importCommand(app))
	var out, errOut bytes.Buffer
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&errOut)
	if stdin != nil {
		c.SetIn(stdin)
	}
	err := c.Execute()
	return importRun{stdout: out.String(), stderr: errOut.String(), err: err}
}

// importTestApp is an empty app with the schema, the hooks and one organization.
func importTestApp(t *testing.T) (*tests.TestApp, string) {
	t.Helper()
	app, err := tests.NewTestApp(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Cleanup)
	hooks.Register(app)
	id, err := store.New(app).Accounts().CreateOrg("Acme Retail")
	if err != nil {
		t.Fatal(err)
	}
	return app, strconv.FormatInt(id, 10)
}

func countProducts(t *testing.T, app core.App) int {
	t.Helper()
	n, err := app.CountRecords("products")
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// writeCatalog writes content to a file of the test's temporary folder.
func writeCatalog(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestImportCommandImportsAndUpdates(t *testing.T) {
	app, org := importTestApp(t)
	good := filepath.Join("..", "catalog", "testdata", "good.json")

	r := runImportCommand(app, nil, "import", "--org", org, good)
	if r.err != nil {
		t.Fatalf("import: %v\n%s", r.err, r.stderr)
	}
	summary := regexp.MustCompile(`^Imported into organization ` + org +
		`: 5 products \(5 created, 0 updated, 0 unchanged; 0 kept accepted values\), 0 deactivated, 2 templates \(3 options\), 2 brands in \d+(\.\d+)?[mµ]?s\.\n$`)
	if !summary.MatchString(r.stdout) {
		t.Errorf("summary %q", r.stdout)
	}
	if r.stderr != "" {
		t.Errorf("no progress when stderr is not a terminal, got %q", r.stderr)
	}

	r = runImportCommand(app, nil, "import", "--org", org, "--json", good)
	want := `{"templates":2,"options":3,"brands":2,"created":0,"updated":0,"unchanged":5,"keptEnriched":0,"deactivated":0,"productsCreated":0,"productsUpdated":0}` + "\n"
	if r.err != nil || r.stdout != want {
		t.Errorf("--json: %q %v, want %q", r.stdout, r.err, want)
	}
	if n := countProducts(t, app); n != 5 {
		t.Errorf("re-import should update, not duplicate: %d products", n)
	}

	// a full snapshot with one product of the five: the other active ones
	// (RUN-43-BLUE is inactive already) are deactivated
	r = runImportCommand(app, strings.NewReader(`{"products": [{"sku": "MUG-1", "externalId": "ERP-9", "name": "Mug"}]}`),
		"import", "--org", org, "--json", "--deactivate-missing", "-")
	want = `{"templates":0,"options":0,"brands":0,"created":0,"updated":0,"unchanged":1,"keptEnriched":0,"deactivated":3,"productsCreated":0,"productsUpdated":0}` + "\n"
	if r.err != nil || r.stdout != want {
		t.Errorf("--deactivate-missing: %q %v, want %q", r.stdout, r.err, want)
	}
}

func TestImportCommandReadsStdin(t *testing.T) {
	app, org := importTestApp(t)
	r := runImportCommand(app, strings.NewReader(`{"products": [{"sku": "A"}, {"sku": "B"}]}`), "import", "--org", org, "--json", "-")
	if r.err != nil || !strings.Contains(r.stdout, `"created":2`) {
		t.Fatalf("stdin import: %q %v", r.stdout, r.err)
	}
}

func TestImportCommandRefusesBadFiles(t *testing.T) {
	app, org := importTestApp(t)
	runImportCommand(app, nil, "import", "--org", org, filepath.Join("..", "catalog", "testdata", "good.json"))
	before := countProducts(t, app)

	cases := []struct{ name, content, want string }{
		{"dup.json", "{\"products\": [\n{\"sku\": \"NEW-1\"},\n{\"sku\": \"NEW-1\"}]}",
			`dup.json: products[1].sku: duplicate SKU "NEW-1" (also products[0], line 2): products may share a SKU only when each has its own externalId (line 3)`},
		{"master.json", `{"products": [{"sku": "NEW-1", "variantMaster": "NOPE"}]}`,
			`master.json: products[0].variantMaster: no product with SKU "NOPE" (line 1)`},
		{"broken.json", "{\n  \"products\": [\n    {\"sku\": \"NEW-1\",}\n  ]\n}",
			"broken.json: line 3, column 21: invalid character '}' at start of string (expecting '\"') in products[0]"},
	}
	for _, c := range cases {
		r := runImportCommand(app, nil, "import", "--org", org, writeCatalog(t, c.name, c.content))
		if r.err == nil || !strings.HasSuffix(r.err.Error(), c.want) {
			t.Errorf("%s: got %v, want it to end with %q", c.name, r.err, c.want)
		}
		if !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("%s: stderr %q stdout %q", c.name, r.stderr, r.stdout)
		}
	}
	if after := countProducts(t, app); after != before {
		t.Errorf("a refused file changed the products: %d → %d", before, after)
	}
}

func TestImportCommandArguments(t *testing.T) {
	app, org := importTestApp(t)
	file := writeCatalog(t, "ok.json", `{"products": []}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "--org", "999", file}, "no organization with id 999"},
		{[]string{"import", "--org", "abc", file}, "--org must be an organization id"},
		{[]string{"import", file}, "--org must be an organization id"},
		{[]string{"import", "--org", org, filepath.Join(t.TempDir(), "missing.json")}, "open catalog"},
		{[]string{"import", "--org", org}, "accepts 1 arg(s)"},
	} {
		r := runImportCommand(app, nil, c.args...)
		if r.err == nil || !strings.Contains(r.err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, r.err, c.want)
		}
	}
}

func TestImportCommandShopifyCSV(t *testing.T) {
	app, org := importTestApp(t)
	file := filepath.Join("..", "catalog", "testdata", "shopify_export.csv")
	r := runImportCommand(app, nil, "import", "--org", org, "--format", "shopify-csv", "--json", file)
	want := `{"templates":0,"options":0,"brands":2,"created":6,"updated":0,"unchanged":0,"keptEnriched":0,"deactivated":0,"productsCreated":6,"productsUpdated":0}` + "\n"
	if r.err != nil || r.stdout != want {
		t.Fatalf("shopify-csv import: %q %v, want %q", r.stdout, r.err, want)
	}
	// the same file read as JSON is refused, and a format we do not read too
	r = runImportCommand(app, nil, "import", "--org", org, file)
	if r.err == nil || !strings.Contains(r.err.Error(), "shopify_export.csv: line 1, column 1: invalid character") {
		t.Errorf("a CSV file read as JSON: %v", r.err)
	}
	r = runImportCommand(app, nil, "import", "--org", org, "--format", "xml", file)
	if r.err == nil || !strings.Contains(r.err.Error(), `unknown catalog format "xml"`) {
		t.Errorf("--format xml: %v", r.err)
	}
	bad := writeCatalog(t, "bad.csv", "Handle,Title,Status\na,A,active\nb,B,live\n")
	r = runImportCommand(app, nil, "import", "--org", org, "--format", "shopify-csv", bad)
	if r.err == nil || !strings.HasSuffix(r.err.Error(), `bad.csv: Status: want active, draft or archived, got "live" (line 3)`) {
		t.Errorf("a bad CSV: %v", r.err)
	}
	if n := countProducts(t, app); n != 6 {
		t.Errorf("%d products after the refused files, want 6", n)
	}
}

// TestImportCommandRefusesInvalidUTF8: bytes that are not UTF-8 anywhere
// in a Shopify CSV (a cell the import reads, one it ignores, a cell over
// several lines) refuse the file with the line and column of the first
// bad byte, and nothing is stored, as in a JSON catalog.
func TestImportCommandRefusesInvalidUTF8(t *testing.T) {
	app, org := importTestApp(t)
	rows := []struct{ name, content, want string }{
		{"title", "Handle,Title,Tags\ntee,Tee,cotton\nmug,M\xffg,\n", "line 3, column 6: invalid UTF-8"},
		{"ignored column", "Handle,Title,Tags\ntee,Tee,cot\xc3ton\n", "line 2, column 12: invalid UTF-8"},
		{"multi-line body", "Handle,Title,Body (HTML)\ntee,Tee,\"<p>a</p>\n<p>\xe2\x82</p>\"\n", "line 3, column 4: invalid UTF-8"},
		{"header", "Handle,Title,Fa\xfcbric (product.metafields.custom.fabric)\ntee,Tee,x\n", "line 1, column 16: invalid UTF-8"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			file := writeCatalog(t, "bad.csv", r.content)
			run := runImportCommand(app, nil, "import", "--org", org, "--format", "shopify-csv", file)
			if run.err == nil || !strings.Contains(run.err.Error(), "bad.csv: "+r.want) {
				t.Errorf("got %v, want %q", run.err, r.want)
			}
			if n := countProducts(t, app); n != 0 {
				t.Errorf("%d products stored from a refused file", n)
			}
		})
	}
}
