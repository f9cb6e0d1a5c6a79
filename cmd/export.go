package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

func exportCommand(app core.App) *cobra.Command {
	var org, format string
	c := &cobra.Command{
		Use:   "export --org ORG_ID [--format json|shopify-csv] FILE",
		Short: "Export an organization's catalog, with its accepted enrichment, as a catalog file or a Shopify product CSV",
		Long: "Export an organization's products, with the values accepted revisions set, to FILE (- for\n" +
			"standard output): as a catalog file (json, the import's format: importing it again changes\n" +
			"nothing), or as Shopify's product CSV (shopify-csv: title, body, vendor, options,\n" +
			"barcodes, images, status and metafield columns for the other attributes) that Shopify's\n" +
			"product import takes back. docs/catalog-format.md in the source describes both.\n" +
			"The file appears whole or not at all: it is written beside FILE, then renamed.",
		Args:         cobra.ExactArgs(1),
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			orgID, err := migratedOrg(app, org)
			if err != nil {
				return err
			}
			start := time.Now()
			var n int
			report := c.OutOrStdout()
			if args[0] == "-" {
				report = c.ErrOrStderr()
				n, err = catalog.Export(app, orgID, c.OutOrStdout(), format)
			} else {
				n, err = exportToFile(args[0], func(w io.Writer) (int, error) { return catalog.Export(app, orgID, w, format) })
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(report, "Exported %d products of organization %s (%s) to %s in %s.\n",
				n, orgID, format, displayName(args[0]), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	c.Flags().StringVar(&org, "org", "", "the organization id (required)")
	c.Flags().StringVar(&format, "format", catalog.FormatJSON, "json (the catalog file) or shopify-csv (Shopify's product CSV)")
	return c
}

// exportToFile writes name through write, into a temporary file beside it
// that replaces name once complete.
func exportToFile(name string, write func(w io.Writer) (int, error)) (int, error) {
	// note: checked first, as the rename would fail only after the whole export
	if info, err := os.Stat(name); err == nil && info.IsDir() {
		return 0, fmt.Errorf("%s is a folder: name the file to write, e.g. %s", name, filepath.Join(name, "catalog.json"))
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return 0, fmt.Errorf("create %s: %w", name, err)
	}
	defer os.Remove(f.Name())              // note: gone after the rename; a leftover after a failure
	if err := f.Chmod(0o644); err != nil { // note: CreateTemp's 0600 is not what os.Create would give
		f.Close()
		return 0, fmt.Errorf("create %s: %w", name, err)
	}
	n, err := write(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write %s: %w", name, cerr)
	}
	if err != nil {
		return n, err
	}
	if err := os.Rename(f.Name(), name); err != nil {
		return n, fmt.Errorf("write %s: %w", name, err)
	}
	return n, nil
}
