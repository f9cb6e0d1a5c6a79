// Package cmd adds the service's subcommands (org, apikey, import, export, metrics,
// demo, restore) to PocketBase's root command, next to its own serve,
// superuser and migrate.
package cmd

import (
	"encoding/json/v2"
	"fmt"
	"io"
	"strconv"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

// Commands returns the service's subcommands, bound to app, for a process
// run with args (without the program name).
func Commands(app core.App, args []string) []*cobra.Command {
	return []*cobra.Command{
		orgCommand(app),
		apikeyCommand(app),
		importCommand(app),
		exportCommand(app),
		metricsCommand(app),
		demoCommand(app),
		restoreCommand(app, Subcommand(args) == "restore"),
	}
}

// group is a command that only holds subcommands. Run alone it prints its
// help; run with anything else (a mistyped subcommand) it fails, where
// cobra would print the help and exit 0, so that `apikey revoek 5` in a
// script does not pass for done.
func group(use, short string) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Args: cobra.ArbitraryArgs, SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for %q (see %s --help)", args[0], c.CommandPath(), c.CommandPath())
			}
			return c.Help()
		}}
}

// migrated runs pending migrations: PocketBase runs them on serve only.
func migrated(app core.App) error {
	if err := app.RunAllMigrations(); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}

// migratedOrg applies pending migrations, then checks that raw names an
// existing organization: the start of every command that works on one.
func migratedOrg(app core.App, raw string) (enrichment.Org, error) {
	if err := migrated(app); err != nil {
		return "", err
	}
	return existingOrg(app, raw)
}

// existingOrg checks an --org value and returns it as an organization.
func existingOrg(app core.App, raw string) (enrichment.Org, error) {
	if id, err := strconv.ParseInt(raw, 10, 64); err != nil || id < 1 {
		return "", fmt.Errorf("--org must be an organization id (a positive number), got %q", raw)
	}
	ok, err := store.New(app).Accounts().OrgExists(enrichment.Org(raw))
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("no organization with id %s (org create makes one)", raw)
	}
	return enrichment.Org(raw), nil
}

// printJSON writes v as one line of JSON.
func printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v, json.Deterministic(true)) // note: a map's members in one order, run after run
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}
