package checkpoint

import (
	"errors"
	"path/filepath"

	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Register keeps app's data.db log short and durable, its connections
// opened with Connector (no checkpoint at close): every process syncs the
// log it leaves, and, unless Litestream replicates data.db (replicated)
// and checkpoints it itself, a checkpointer runs while app serves, shown
// in the operators' metrics. note: no other process checkpoints, not even
// past Bound: an import's commit is its whole size of log in any case, and
// a command's TRUNCATE beside a running server would hold the server's
// writers for the copy (22 s after 1M products).
func Register(app core.App, replicated bool) {
	app.OnBootstrapClear().Bind(&hook.Handler[*core.BootstrapEvent]{
		Id: "enrichmentCheckpointsAtClose",
		Func: func(e *core.BootstrapEvent) error {
			walPath := filepath.Join(e.App.DataDir(), "data.db-wal")
			err := e.Next() // note: closes the databases
			if syncErr := syncLog(walPath); syncErr != nil {
				e.App.Logger().Error("enrichment: data.db's log at close", "error", syncErr.Error())
				err = errors.Join(err, syncErr)
			}
			return err
		},
	})
	if replicated {
		return
	}
	var c *Checkpointer
	app.OnServe().Bind(&hook.Handler[*core.ServeEvent]{
		Id: "enrichmentCheckpoints",
		Func: func(se *core.ServeEvent) error {
			// note: PocketBase's concurrent (read) pool is always a *dbx.DB
			c = Start(se.App.ConcurrentDB().(*dbx.DB), filepath.Join(se.App.DataDir(), "data.db"), Options{
				OnError: func(mode string, err error) {
					se.App.Logger().Warn("enrichment: checkpoint of data.db", "mode", mode, "error", err.Error())
				},
			})
			opsmetrics.Of(se.App).SetCheckpoints(func() opsmetrics.Checkpoints {
				s := c.Stats()
				return opsmetrics.Checkpoints{Count: s.Passive + s.Truncate, Seconds: s.Time.Seconds()}
			})
			return se.Next()
		},
	})
	app.OnTerminate().Bind(&hook.Handler[*core.TerminateEvent]{
		Id: "enrichmentCheckpointsStop",
		Func: func(te *core.TerminateEvent) error {
			if c != nil {
				c.Stop()
				opsmetrics.Of(te.App).SetCheckpoints(nil)
			}
			return te.Next()
		},
	})
}
