package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

// runExportCommand runs args on a root command holding the export command.
func runExportCommand(app core.App, args ...string) importRun {
	c := &cobra.Command{Use: "enrichment", SilenceUsage: true}
	c.AddCommand(exportCommand(app))
	var out, errOut bytes.Buffer
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&errOut)
	err := c.Execute()
	return importRun{stdout: out.String(), stderr: errOut.String(), err: err}
}

func TestExportCommand(t *testing.T) {
	app, org := importTestApp(t)
	if r := runImportCommand(app, nil, "import", "--org", org, filepath.Join("..", "catalog", "testdata", "good.json")); r.err != nil {
		t.Fatal(r.err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "catalog.json")
	r := runExportCommand(app, "export", "--org", org, file)
	if r.err != nil || !regexp.MustCompile(`^Exported 5 products of organization `+org+` \(json\) to .*catalog.json in .*\.\n$`).MatchString(r.stdout) {
		t.Fatalf("export: %q %v", r.stdout, r.err)
	}
	// the file the export wrote re-imports to nothing new
	r = runImportCommand(app, nil, "import", "--org", org, "--json", file)
	if r.err != nil || !strings.Contains(r.stdout, `"created":0,"updated":0,"unchanged":5`) {
		t.Errorf("re-import of the export: %q %v", r.stdout, r.err)
	}

	// to standard output, the summary on stderr
	r = runExportCommand(app, "export", "--org", org, "--format", "shopify-csv", "-")
	if r.err != nil || !strings.HasPrefix(r.stdout, "Handle,Title,Body (HTML),") || !strings.HasPrefix(r.stderr, "Exported 5 products") {
		t.Errorf("export to stdout: %q / %q %v", r.stdout, r.stderr, r.err)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--org", "999", file}, "no organization with id 999"},
		{[]string{"export", file}, "--org must be an organization id"},
		{[]string{"export", "--org", org, "--format", "xml", filepath.Join(dir, "x.xml")}, `unknown catalog format "xml"`},
		{[]string{"export", "--org", org, filepath.Join(dir, "no-such-dir", "x.json")}, "create"},
		{[]string{"export", "--org", org, dir}, "is a folder: name the file to write"},
	} {
		if r := runExportCommand(app, c.args...); r.err == nil || !strings.Contains(r.err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, r.err, c.want)
		}
	}
	// a failed export leaves no file behind
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "catalog.json" {
		t.Errorf("files left in the folder: %v", entries)
	}
}
