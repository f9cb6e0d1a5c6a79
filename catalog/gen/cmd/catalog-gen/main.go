// Command catalog-gen writes a generated catalog file in the import format to
// stdout: `go run ./catalog/gen/cmd/catalog-gen -products 100000 > catalog.json`,
// or with -format shopify-csv the same catalog as a Shopify product CSV.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
)

func main() {
	opt := gen.Bench()
	flag.IntVar(&opt.Products, "products", opt.Products, "products, variants included")
	flag.IntVar(&opt.Templates, "templates", opt.Templates, "attribute templates")
	flag.IntVar(&opt.Brands, "brands", opt.Brands, "brands")
	flag.Uint64Var(&opt.Seed, "seed", opt.Seed, "seed: the same flags always give the same file")
	format := flag.String("format", "json", "json (the import format) or shopify-csv (Shopify's product CSV; -products counts variants)")
	flag.Parse()

	write := gen.Write
	switch *format {
	case "json":
	case "shopify-csv":
		write = gen.WriteShopifyCSV
	default:
		fmt.Fprintf(os.Stderr, "catalog-gen: unknown -format %q (want json or shopify-csv)\n", *format)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	if err := write(w, opt); err != nil {
		fmt.Fprintln(os.Stderr, "catalog-gen:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "catalog-gen:", err)
		os.Exit(1)
	}
}
