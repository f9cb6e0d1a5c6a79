// Command catalog-gen writes a generated catalog file in the import format to
// stdout: `go run ./catalog/gen/cmd/catalog-gen -products 100000 > catalog.json`.
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
	flag.Parse()

	w := bufio.NewWriter(os.Stdout)
	if err := gen.Write(w, opt); err != nil {
		fmt.Fprintln(os.Stderr, "catalog-gen:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "catalog-gen:", err)
		os.Exit(1)
	}
}
