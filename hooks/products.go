package hooks

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/types"
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
				st, org := store.New(txApp), enrichment.Org(e.Record.GetString("organization"))
				if err := st.BumpGeneration(org); err != nil {
					return err
				}
				return refreshProductGaps(txApp, org, e.Record)
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
				if err := st.Catalog().RecordUpserts(org, []int64{id}); err != nil {
					return err
				}
				return refreshProductGaps(txApp, org, e.Record)
			})
		},
	})
	registerOptionGaps(app)
}

// refreshProductGaps keeps the gaps index of a product saved through
// PocketBase.
func refreshProductGaps(app core.App, org enrichment.Org, r *core.Record) error {
	id, err := recordID(r)
	if err != nil {
		return err
	}
	if err := store.New(app).Catalog().RefreshGaps(org, []int64{id}); err != nil {
		return err
	}
	// note: the saved record answers the request (the dashboard shows it):
	// it gets the figures just written
	var g struct {
		Completeness int    `db:"completeness"`
		Gaps         string `db:"gaps"`
		GapRank      string `db:"gapRank"`
	}
	if err := app.DB().Select("completeness", "gaps", "gapRank").From(schema.Products).
		Where(dbx.HashExp{"id": r.Id}).One(&g); err != nil {
		return fmt.Errorf("read the gaps of product %s: %w", r.Id, err)
	}
	r.Set("completeness", g.Completeness)
	r.Set("gaps", types.JSONRaw(g.Gaps))
	r.Set("gapRank", g.GapRank)
	return nil
}

// registerOptionGaps refreshes the gaps of every product of a template
// whose options change through PocketBase (the dashboard, the records
// API), in the transaction that saves them: an option shown on the website
// is a slot of each of them. The import refreshes for the options it
// writes itself.
func registerOptionGaps(app core.App) {
	refresh := func(e *core.RecordEvent) error {
		return inTransaction(e, func(txApp core.App) error {
			if err := e.Next(); err != nil {
				return err
			}
			st, org := store.New(txApp), enrichment.Org(e.Record.GetString("organization"))
			templates := []string{e.Record.GetString("template")}
			if old := e.Record.Original(); old != nil && old.GetString("template") != templates[0] && !e.Record.IsNew() {
				templates = append(templates, old.GetString("template"))
			}
			for _, t := range templates {
				if err := st.Catalog().RefreshTemplateGaps(org, t); err != nil {
					return err
				}
			}
			return nil
		})
	}
	for _, bind := range []func(...string) *hook.TaggedHook[*core.RecordEvent]{app.OnRecordCreate, app.OnRecordUpdate, app.OnRecordDelete} {
		bind(schema.AttributeOptions).Bind(&hook.Handler[*core.RecordEvent]{Id: "enrichmentOptionGaps", Func: refresh})
	}
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
