// Package service assembles the Catalog Enrichment app: PocketBase with the
// service's migrations, hooks, routes, pages and subcommands. main.go runs
// it with the embedded pages; the load harness's profiling build runs the
// same assembly.
package service

import (
	"io/fs"
	"os"

	"github.com/catalog-enrichment/enrichment/cmd"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
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
		DBConnect:      dbConnect,
	})
	// note: PocketBase warns, on standard output before a command's own
	// output (--json included), when the SQLite driver is not the one it
	// was tested with (v1.57.0). We build on a newer one for its faster
	// writes (docs/performance.md), with the modernc.org/libc that driver
	// pins, which is what the warning is there to protect:
	// TestSQLiteDriverHasItsLibc checks that instead.
	app.OnBootstrap().Unbind(pocketbase.ModerncDepsCheckHookId)

	// schema changes come only from the Go migrations in migrations/
	migratecmd.MustRegister(app, app.RootCmd, migratecmd.Config{Automigrate: false})

	wiring.Bind(app, wiring.Options{Pages: pages, ReplicaURL: replicaURL, Out: os.Stdout, Deliver: true, Trust: true, Checkpoint: true, Completeness: true,
		Metrics: opsmetrics.ConfigFromEnv()})
	app.RootCmd.AddCommand(cmd.Commands(app, args)...)
	return app
}
