package replica

import (
	"context"
	"fmt"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync/atomic"

	"github.com/benbjohnson/litestream"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// StatusPath is the operators' route that shows the replication's Status.
const StatusPath = "/api/replication"

// dbFile is the database that is replicated, in the data folder.
const dbFile = "data.db"

// Register serves StatusPath (superusers only) on app and, when rawURL is
// not empty, replicates data.db to it from the moment the server starts
// until it stops. The server refuses to start when it cannot replicate.
// Messages go to app's log and to out (the server's output).
func Register(app core.App, rawURL string, out io.Writer) {
	var current atomic.Pointer[Replicator]
	start := func(app core.App) error {
		logs := appLogs(app)
		log := slog.New(slog.NewMultiHandler(logs, slog.NewTextHandler(out, nil)))
		// note: Litestream's routine messages (a compaction, every few seconds)
		// stay out; its warnings and errors reach both
		litestreamLog := slog.New(slog.NewMultiHandler(
			atLeast{slog.LevelWarn, logs},
			atLeast{slog.LevelWarn, slog.NewTextHandler(out, nil)},
		)).With("component", "litestream")
		ctx, cancel := context.WithTimeout(context.Background(), shutdownSync)
		defer cancel()
		r, err := Start(ctx, filepath.Join(app.DataDir(), dbFile), rawURL, log, litestreamLog)
		if err != nil {
			return err
		}
		current.Store(r)
		opsmetrics.Of(app).SetReplication(func() opsmetrics.Replication {
			return opsmetrics.Replication{LagSeconds: r.Status().LagSeconds, Errors: r.Errors()}
		})
		if !replaceNightlyCheckpoint(app) {
			app.Logger().Warn("enrichment: PocketBase's nightly job " + nightlyJob + " was not found; if it still checkpoints data.db with TRUNCATE, it holds the writers for the busy timeout every night")
		}
		fmt.Fprintf(out, "Replicating data.db to %s (the lag: GET %s)\n", r.Replica(), StatusPath)
		app.Logger().Info("enrichment: replicating data.db to " + r.Replica())
		return nil
	}
	stop := func(app core.App) {
		r := current.Swap(nil)
		if r == nil {
			return
		}
		opsmetrics.Of(app).SetReplication(nil)
		ctx, cancel := context.WithTimeout(context.Background(), 2*shutdownSync)
		defer cancel()
		if err := r.Close(ctx); err != nil {
			app.Logger().Error("enrichment: "+err.Error(), "error", err.Error())
			fmt.Fprintln(out, err)
		}
	}

	app.OnServe().Bind(&hook.Handler[*core.ServeEvent]{
		Id: "enrichmentReplication",
		Func: func(se *core.ServeEvent) error {
			if rawURL != "" {
				if err := start(se.App); err != nil {
					return err
				}
			}
			se.Router.GET(StatusPath, func(e *core.RequestEvent) error {
				if r := current.Load(); r != nil {
					return e.JSON(http.StatusOK, r.Status())
				}
				return e.JSON(http.StatusOK, Status{})
			}).Bind(apis.RequireSuperuserAuth())
			return se.Next()
		},
	})
	// Litestream's working files (copies of recent WAL pages) are no backup
	app.OnBackupCreate().Bind(&hook.Handler[*core.BackupEvent]{
		Id: "enrichmentReplicationNotBackedUp",
		Func: func(e *core.BackupEvent) error {
			e.Exclude = append(e.Exclude, "."+dbFile+litestream.MetaDirSuffix)
			return e.Next()
		},
	})
	if rawURL == "" {
		return
	}
	// the last upload, after the HTTP server stopped taking requests
	app.OnTerminate().Bind(&hook.Handler[*core.TerminateEvent]{
		Id: "enrichmentReplicationStop",
		Func: func(te *core.TerminateEvent) error {
			stop(te.App)
			return te.Next()
		},
	})
	// note: a dashboard restore moves data.db away; replication stops first
	// and resumes in the restarted process (or here, when the restore failed)
	app.OnBackupRestore().Bind(&hook.Handler[*core.BackupEvent]{
		Id: "enrichmentReplicationPause",
		Func: func(e *core.BackupEvent) error {
			stop(e.App)
			err := e.Next()
			if err != nil {
				if startErr := start(e.App); startErr != nil {
					e.App.Logger().Error("enrichment: replication did not resume after a failed restore", "error", startErr.Error())
					fmt.Fprintln(out, startErr)
				}
			}
			return err
		},
	})
}

// nightlyJob is PocketBase's nightly maintenance job: TRUNCATE checkpoints
// of data.db and auxiliary.db, then PRAGMA optimize.
const nightlyJob = "__pbDBOptimize__"

// replaceNightlyCheckpoint keeps PocketBase's nightly job but for its
// checkpoint of data.db, and reports whether the job was there. A TRUNCATE
// checkpoint waits for every reader to leave the WAL, which Litestream's
// read transaction never does: it would hold the writers for the whole
// busy timeout (10 s) and fail. Litestream checkpoints data.db itself.
func replaceNightlyCheckpoint(app core.App) bool {
	var schedule string
	for _, j := range app.Cron().Jobs() {
		if j.Id() == nightlyJob {
			schedule = j.Expression()
		}
	}
	if schedule == "" {
		return false
	}
	app.Cron().MustAdd(nightlyJob, schedule, func() {
		if _, err := app.AuxNonconcurrentDB().NewQuery("PRAGMA wal_checkpoint(TRUNCATE)").Execute(); err != nil {
			app.Logger().Warn("enrichment: nightly checkpoint of auxiliary.db", "error", err.Error())
		}
		if _, err := app.NonconcurrentDB().NewQuery("PRAGMA optimize").Execute(); err != nil {
			app.Logger().Warn("enrichment: nightly PRAGMA optimize", "error", err.Error())
		}
	})
	return true
}

// atLeast passes on records of level or above only.
type atLeast struct {
	level slog.Level
	slog.Handler
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(attrs []slog.Attr) slog.Handler {
	return atLeast{h.level, h.Handler.WithAttrs(attrs)}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{h.level, h.Handler.WithGroup(name)}
}
