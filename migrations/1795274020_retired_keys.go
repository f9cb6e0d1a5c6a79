package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Rotating a key twice within a grace period used to end the first old
// key's grace at once; each rotated-out key now keeps its own, and the ones
// before the latest wait in this table until their grace ends.
func init() {
	m.Register(func(app core.App) error {
		if _, err := app.DB().NewQuery(`CREATE TABLE {{` + schema.RetiredKeysTable + `}} (
			[[keyHash]] TEXT PRIMARY KEY NOT NULL,
			[[client]] TEXT NOT NULL,
			[[expiresAt]] TEXT NOT NULL
		)`).Execute(); err != nil {
			return err
		}
		_, err := app.DB().NewQuery(`CREATE INDEX idx_enrichment_retired_keys_client ON {{` +
			schema.RetiredKeysTable + `}} ([[client]])`).Execute()
		return err
	}, func(app core.App) error {
		_, err := app.DB().DropTable(schema.RetiredKeysTable).Execute()
		return err
	})
}
