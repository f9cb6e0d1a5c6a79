package hooks

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// registerAPIClients keeps key hashes (current and rotated-out) out of every records API response,
// superusers' included (PocketBase unhides hidden fields for them).
func registerAPIClients(app core.App) {
	app.OnRecordEnrich("api_clients").Bind(&hook.Handler[*core.RecordEnrichEvent]{
		Id: "enrichmentHideKeyHash",
		Func: func(e *core.RecordEnrichEvent) error {
			// note: after Next, which is where PocketBase unhides fields for superusers
			if err := e.Next(); err != nil {
				return err
			}
			e.Record.Hide("keyHash", "previousKeyHash")
			return nil
		},
	})
}
