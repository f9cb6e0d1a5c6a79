package hooks

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"
)

// registerAPIClients keeps key hashes (current and rotated-out) out of every
// records API response, superusers' included (PocketBase unhides hidden
// fields for them), and keeps every client that has revisions: its
// proposals are the vendor's history and the merchant's record.
func registerAPIClients(app core.App) {
	app.OnRecordDelete(schema.APIClients).Bind(&hook.Handler[*core.RecordEvent]{
		Id: "enrichmentKeepClientsWithHistory",
		Func: func(e *core.RecordEvent) error {
			// note: deleting the organization deletes its clients and
			// revisions; by then the organization record is gone
			if !organizationExists(e.App, e.Record.GetString("organization")) {
				return e.Next()
			}
			id, err := recordID(e.Record)
			if err != nil {
				return err
			}
			n, err := store.New(e.App).Accounts().CountClientRevisions(enrichment.Org(e.Record.GetString("organization")), id)
			if err != nil {
				return err
			}
			if n > 0 {
				return router.NewBadRequestError(fmt.Sprintf("This API client has %d revisions, the history of its proposals, "+
					"so it cannot be deleted; revoke its key instead (set active to false, or apikey revoke %s).", n, e.Record.Id), nil)
			}
			return e.Next()
		},
	})
	hideFromEveryone(app, schema.APIClients, "keyHash", "previousKeyHash")
}

// hideFromEveryone keeps fields of a collection out of every records API
// response, superusers' included: PocketBase unhides hidden fields for
// superusers, so this hides them again after it has.
func hideFromEveryone(app core.App, collection string, fields ...string) {
	app.OnRecordEnrich(collection).Bind(&hook.Handler[*core.RecordEnrichEvent]{
		Id: "enrichmentHideSecrets_" + collection, // note: a handler of the same id would replace it
		Func: func(e *core.RecordEnrichEvent) error {
			// note: after Next, which is where PocketBase unhides fields for superusers
			if err := e.Next(); err != nil {
				return err
			}
			e.Record.Hide(fields...)
			return nil
		},
	})
}
