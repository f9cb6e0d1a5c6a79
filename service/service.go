// Package service assembles the Catalog Enrichment app: PocketBase with the
// service's migrations, hooks, routes, pages and subcommands. main.go runs
// it with the embedded pages; the load harness's profiling build runs the
// same assembly.
package service

import (
	"io/fs"
	"os"

	"github.com/catalog-enrichment/enrichment/cmd"
	"github.com/catalog-enrichment/enrichment/replica"
	"github.com/catalog-enrichment/enrichment/service/wiring"
	"github.com/pocketbase/pocketbase"
	"github.com/pocketbase/pocketbase/plugins/migratecmd"
)

// New builds the app for the command line args (without the program name),
// serving pages at /. `serve` replicates data.db when the environment
// names a replica (replica.URLEnv).
func New(args []string, pages fs.FS) *pocketbase.PocketBase {
	var replicaURL string
	if cmd.Subcommand(args) == "serve" {
		replicaURL = os.Getenv(replica.URLEnv)
	}
	app := pocketbase.NewWithConfig(pocketbase.Config{
		// note: decided here, not guessed: PocketBase turns dev mode (every SQL
		// statement printed) on for binaries under the temp folder, as `go run` builds
		DefaultDev:     false,
		DefaultDataDir: cmd.DefaultDataDir(args),
		DBConnect:      dbConnect(replicaURL != ""),
	})

	// schema changes come only from the Go migrations in migrations/
	migratecmd.MustRegister(app, app.RootCmd, migratecmd.Config{Automigrate: false})

	wiring.Bind(app, wiring.Options{Pages: pages, ReplicaURL: replicaURL, Out: os.Stdout, Deliver: true, Trust: true})
	app.RootCmd.AddCommand(cmd.Commands(app, args)...)
	return app
}
