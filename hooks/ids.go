package hooks

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// registerIDs numbers new records of every collection whose id is numeric
// (the API shows those ids as numbers), from the never-reused sequence.
func registerIDs(app core.App) {
	app.OnRecordCreate().Bind(&hook.Handler[*core.RecordEvent]{
		Id:       "enrichmentNumericIDs",
		Priority: -100, // before any other create hook reads the id
		Func: func(e *core.RecordEvent) error {
			if !hasNumericID(e.Record.Collection()) {
				return e.Next()
			}
			name := e.Record.Collection().Name
			if e.Record.Id != "" {
				// an explicit id (validated by the field's pattern) is kept
				if id := store.ParseID(e.Record.Id); id > 0 {
					if err := store.ClaimID(e.App.DB(), name, id); err != nil {
						return err
					}
				}
				return e.Next()
			}
			id, err := store.NextIDs(e.App.DB(), name, 1)
			if err != nil {
				return err
			}
			e.Record.Id = store.FormatID(id)
			return e.Next()
		},
	})
}

func hasNumericID(c *core.Collection) bool {
	f, ok := c.Fields.GetByName("id").(*core.TextField)
	return ok && f.Pattern == schema.NumericIDPattern
}
