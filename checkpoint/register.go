package checkpoint

import (
	"path/filepath"

	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Register runs a checkpointer of app's data.db while app serves, and
// shows its checkpoints in the operators' metrics.
func Register(app core.App) {
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
