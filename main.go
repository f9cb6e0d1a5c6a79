// Command enrichment is the Catalog Enrichment service: PocketBase with the
// enrichment API, its review hooks, the reviewers' page and the operators'
// subcommands, in one binary.
package main

import (
	"embed"
	"io/fs"
	"log"
	"os"

	"github.com/catalog-enrichment/enrichment/service"
)

// the pages are embedded, so the binary alone is the whole service
//
//go:embed all:pb_public
var embedded embed.FS

func main() {
	pages, err := fs.Sub(embedded, "pb_public")
	if err != nil {
		log.Fatal(err)
	}
	if err := service.New(os.Args[1:], pages).Start(); err != nil {
		log.Fatal(err)
	}
}
