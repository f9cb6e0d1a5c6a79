// Command enrichment is the Catalog Enrichment service: PocketBase with the
// enrichment API, its review hooks, the reviewers' page and the operators'
// subcommands, in one binary.
package main

import (
	"embed"
	"io/fs"
	"log"
	"os"

	"github.com/catalog-enrichment/enrichment/cmd"
	"github.com/catalog-enrichment/enrichment/hooks"
	_ "github.com/catalog-enrichment/enrichment/migrations"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/pocketbase/pocketbase"
	"github.com/pocketbase/pocketbase/plugins/migratecmd"
)

//go:embed all:pb_public
var embedded embed.FS

func main() {
	app := pocketbase.NewWithConfig(pocketbase.Config{
		// note: decided here, not guessed: PocketBase turns dev mode (every SQL
		// statement printed) on for binaries under the temp folder, as `go run` builds
		DefaultDev:     false,
		DefaultDataDir: cmd.DefaultDataDir(os.Args[1:]),
	})

	// schema changes come only from the Go migrations in migrations/
	migratecmd.MustRegister(app, app.RootCmd, migratecmd.Config{Automigrate: false})

	public, err := fs.Sub(embedded, "pb_public")
	if err != nil {
		log.Fatal(err)
	}
	hooks.Register(app)
	routes.Register(app)
	routes.RegisterPublic(app, public)
	app.RootCmd.AddCommand(cmd.Commands(app)...)

	if err := app.Start(); err != nil {
		log.Fatal(err)
	}
}
