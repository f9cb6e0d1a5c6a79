package hooks

import (
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"
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
				// an explicit id is kept, and claimed from the sequence
				id, err := enrichment.ParseID(e.Record.Id)
				if err != nil {
					return router.NewBadRequestError("An id must be a decimal integer in 1..2^53-1.",
						validation.Errors{"id": validation.NewError("validation_invalid_id", err.Error())})
				}
				if err := store.ClaimID(e.App.DB(), name, id); err != nil {
					return err
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
