package cmd

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/mattn/go-isatty"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

func importCommand(app core.App) *cobra.Command {
	var org, format string
	var asJSON, overwriteEnriched, deactivateMissing bool
	c := &cobra.Command{
		Use:   "import --org ORG_ID [--format json|shopify-csv] FILE",
		Short: "Import a catalog file (JSON, or Shopify's product CSV) into an organization, all or nothing",
		Long: "Import a catalog file (JSON; docs/catalog-format.md in the source describes it), or\n" +
			"with --format shopify-csv a Shopify product CSV export (one product per variant, by\n" +
			"externalId HANDLE/SKU), into an organization: templates are upserted by name, brands by name, products by\n" +
			"externalId (by sku when they have none). FILE may be - for standard input. A bad\n" +
			"file is refused with the item or line at fault, and nothing of it is stored. A\n" +
			"progress bar is drawn when stderr is a terminal.\n\n" +
			"A product equal to the stored one is not written (its update time does not move).\n" +
			"A value that an accepted revision set is kept while the file still carries the\n" +
			"value the product had before that acceptance; a file that carries anything else\n" +
			"wins, and the revision's field shows \"overwritten\" to its vendor.\n\n" +
			"Products may share a SKU when each has its own externalId.",
		Args:         cobra.ExactArgs(1),
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			orgID, err := migratedOrg(app, org)
			if err != nil {
				return err
			}
			in, size, closeIn, err := openCatalog(c, args[0])
			if err != nil {
				return err
			}
			defer closeIn()

			opts := catalog.Options{Format: format, Size: size, OverwriteEnriched: overwriteEnriched, DeactivateMissing: deactivateMissing}
			if f := progressTo(c); f != nil {
				opts.Progress = f
			}
			start := time.Now()
			res, err := catalog.Import(app, orgID, in, opts)
			if err != nil {
				return fmt.Errorf("%s: %w", displayName(args[0]), err)
			}
			if asJSON {
				// note: the previous release's two keys stay, for scripts
				// that read them
				return printJSON(c.OutOrStdout(), struct {
					catalog.Result
					ProductsCreated int `json:"productsCreated"`
					ProductsUpdated int `json:"productsUpdated"`
				}{res, res.Created, res.Updated})
			}
			fmt.Fprintf(c.OutOrStdout(),
				"Imported into organization %s: %d products (%d created, %d updated, %d unchanged; %d kept accepted values), "+
					"%d deactivated, %d templates (%d options), %d brands in %s.\n",
				orgID, res.Products(), res.Created, res.Updated, res.Unchanged, res.KeptEnriched, res.Deactivated,
				res.Templates, res.Options, res.Brands, time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	c.Flags().StringVar(&org, "org", "", "the organization id (required)")
	c.Flags().StringVar(&format, "format", catalog.FormatJSON, "the file's format: json (the catalog file) or shopify-csv (Shopify's product CSV)")
	c.Flags().BoolVar(&overwriteEnriched, "overwrite-enriched", false,
		"let the file win over values that accepted revisions set, even where it has not changed since")
	c.Flags().BoolVar(&deactivateMissing, "deactivate-missing", false,
		"deactivate the organization's active products that the file does not contain (a full snapshot)")
	c.Flags().BoolVar(&asJSON, "json", false,
		`print the counts as JSON: {"templates":..,"options":..,"brands":..,"created":..,"updated":..,`+
			`"unchanged":..,"keptEnriched":..,"deactivated":..} (and, as before, "productsCreated" and "productsUpdated")`)
	return c
}

// openCatalog opens FILE, or standard input for "-", with its size when known.
func openCatalog(c *cobra.Command, name string) (io.Reader, int64, func(), error) {
	if name == "-" {
		return c.InOrStdin(), 0, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("open catalog: %w", err)
	}
	var size int64
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
		size = info.Size()
	}
	return f, size, func() { f.Close() }, nil
}

// progressTo returns stderr when it is a terminal, else nil (no progress).
// note: PocketBase's root command silences cobra's error writer, so this is
// the process's stderr unless the caller set a file of its own.
func progressTo(c *cobra.Command) *os.File {
	f := os.Stderr
	if w, ok := c.ErrOrStderr().(*os.File); ok {
		f = w
	}
	if isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()) {
		return f
	}
	return nil
}

func displayName(name string) string {
	if name == "-" {
		return "stdin"
	}
	return name
}
