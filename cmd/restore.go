package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/catalog-enrichment/enrichment/replica"
	"github.com/dustin/go-humanize"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/spf13/cobra"
)

// restoreCommand builds a data folder from a replica. PocketBase opens (and
// so creates) the data folder's databases before any subcommand runs, so
// when this process runs restore (runsHere), the folder is checked at that
// moment: it must be empty or not exist.
func restoreCommand(app core.App, runsHere bool) *cobra.Command {
	var from, timestamp string
	var checked, folderExisted bool
	if runsHere {
		app.OnBootstrap().Bind(&hook.Handler[*core.BootstrapEvent]{
			Id: "enrichmentRestoreIntoEmptyFolder",
			Func: func(e *core.BootstrapEvent) error {
				existed, err := emptyFolder(e.App.DataDir())
				if err != nil {
					return err
				}
				checked, folderExisted = true, existed
				return e.Next()
			},
		})
	}
	c := &cobra.Command{
		Use:   "restore",
		Short: "Build a data folder (--dir, empty or new) from a replica: its latest state, or its state at --timestamp",
		Long: "Build a data folder (--dir, which must be empty or not exist) from the replica that `serve` writes\n" +
			"when " + replica.URLEnv + " is set: its latest state, or its state at --timestamp (RFC 3339,\n" +
			"e.g. 2026-11-23T14:05:00Z). S3 credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			dir := app.DataDir()
			if !checked {
				// note: the folder is cleared below; only a folder found empty may be
				return fmt.Errorf("restore did not see %s before it was opened; run it as its own command", dir)
			}
			// note: what PocketBase created in the empty folder makes way,
			// and a restore refused or failed leaves the folder as it was
			if err := app.ClearBootstrap(); err != nil {
				return fmt.Errorf("close the new data folder: %w", err)
			}
			if err := clearFolder(dir); err != nil {
				return err
			}
			leave := func(err error) error {
				if clearErr := clearFolder(dir); clearErr != nil {
					return errors.Join(err, clearErr)
				}
				if !folderExisted {
					_ = os.Remove(dir)
				}
				return err
			}
			at, err := restoreMoment(from, timestamp, time.Now())
			if err != nil {
				return leave(err)
			}
			started := time.Now()
			restored, err := replica.Restore(c.Context(), from, filepath.Join(dir, "data.db"), at)
			if err != nil {
				return leave(err)
			}
			fmt.Fprintf(c.OutOrStdout(), "Restored data.db (%s) into %s in %s: the state of %s.\nStart it with: enrichment serve --dir %s\n",
				humanize.Bytes(uint64(restored.Bytes)), dir, time.Since(started).Round(time.Millisecond),
				restored.AsOf.UTC().Format(time.RFC3339Nano), dir)
			return nil
		},
	}
	c.Flags().StringVar(&from, "from", "", "the replica's URL: file:///path or s3://bucket/path[?endpoint=URL&region=R]")
	c.Flags().StringVar(&timestamp, "timestamp", "", "restore the state at this moment (RFC 3339) instead of the latest")
	return c
}

// restoreMoment checks restore's flags: the replica's URL is required,
// and the moment, when given, is RFC 3339 and not after now (a replica
// holds no state of the future; restoring its latest instead would hide a
// mistyped year). It answers the zero time for the latest state.
func restoreMoment(from, timestamp string, now time.Time) (time.Time, error) {
	if from == "" {
		return time.Time{}, fmt.Errorf("--from is required: the replica's URL, as in %s", replica.URLEnv)
	}
	if timestamp == "" {
		return time.Time{}, nil
	}
	at, err := time.Parse(time.RFC3339Nano, timestamp)
	if err != nil {
		return time.Time{}, fmt.Errorf("--timestamp %q: want RFC 3339, e.g. 2026-11-23T14:05:00Z", timestamp)
	}
	if at.After(now) {
		return time.Time{}, fmt.Errorf("--timestamp %s is in the future (now is %s): name a past moment, or leave it out for the latest state",
			timestamp, now.UTC().Format(time.RFC3339))
	}
	return at, nil
}

// emptyFolder checks that dir is an empty folder or does not exist, and
// says which.
func emptyFolder(dir string) (existed bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("restore into %s: %w", dir, err)
	case len(entries) > 0:
		return true, fmt.Errorf("restore builds a new data folder, and %s is not empty: name an empty or new folder with --dir", dir)
	}
	return true, nil
}

// clearFolder removes what dir holds.
func clearFolder(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("clear %s: %w", dir, err)
		}
	}
	return nil
}
