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
// opened with Connector (no checkpoint at close). Unless Litestream
// replicates data.db (replicated), which checkpoints it itself: a
// checkpointer runs while app serves, shown in the operators' metrics, and
// a process that ends with a log past Bound empties it first. Every
// process syncs the log it leaves.
func Register(app core.App, replicated bool) {
	app.OnBootstrapClear().Bind(&hook.Handler[*core.BootstrapEvent]{
		Id: "enrichmentCheckpointsAtClose",
		Func: func(e *core.BootstrapEvent) error {
			walPath := filepath.Join(e.App.DataDir(), "data.db-wal")
			if !replicated {
				if err := boundLog(e.App.NonconcurrentDB(), walPath, Bound); err != nil {
					e.App.Logger().Warn("enrichment: checkpoint of data.db at close", "error", err.Error())
				}
			}
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
