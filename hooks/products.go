package hooks

import (
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// registerProducts raises the organization's generation with every product
// created or changed through PocketBase (the dashboard, the records API, a
// decision, Go code), in the transaction that saves it, and writes a new
// product's upsert to the change feed, so no cached answer outlives the
// change and no follower of the feed misses it. Triggers see deletions and
// the changes of the export's set (the import's updates among them; the
// import bumps once for its inserts: migrations/1795272700_generations.go
// says why no insert trigger).
func registerProducts(app core.App) {
	app.OnRecordUpdate(schema.Products).Bind(&hook.Handler[*core.RecordEvent]{
		Id: "enrichmentProductChangeGeneration",
		Func: func(e *core.RecordEvent) error {
			return inTransaction(e, func(txApp core.App) error {
				if err := e.Next(); err != nil {
					return err
				}
				return store.New(txApp).BumpGeneration(enrichment.Org(e.Record.GetString("organization")))
			})
		},
	})
	app.OnRecordCreate(schema.Products).Bind(&hook.Handler[*core.RecordEvent]{
		Id: "enrichmentProductGeneration",
		Func: func(e *core.RecordEvent) error {
			return inTransaction(e, func(txApp core.App) error {
				if err := e.Next(); err != nil {
					return err
				}
				st, org := store.New(txApp), enrichment.Org(e.Record.GetString("organization"))
				if err := st.BumpGeneration(org); err != nil {
					return err
				}
				id, err := recordID(e.Record)
				if err != nil {
					return err
				}
				return st.Catalog().RecordUpserts(org, []int64{id})
			})
		},
	})
}

// inTransaction runs fn in a transaction with e.App set to it meanwhile
// (the outer app would deadlock inside the transaction).
func inTransaction(e *core.RecordEvent, fn func(txApp core.App) error) error {
	outer := e.App
	defer func() { e.App = outer }()
	return e.App.RunInTransaction(func(txApp core.App) error {
		e.App = txApp
		return fn(txApp)
	})
}
