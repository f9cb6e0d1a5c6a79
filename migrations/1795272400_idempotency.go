package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

func init() {
	m.Register(func(app core.App) error {
		_, err := app.DB().NewQuery(`CREATE TABLE {{` + schema.IdempotencyTable + `}} (
			[[client]]      TEXT NOT NULL,
			[[key]]         TEXT NOT NULL,
			[[requestHash]] TEXT NOT NULL,
			[[response]]    BLOB NOT NULL,
			[[created]]     TEXT NOT NULL,
			PRIMARY KEY ([[client]], [[key]])
		) WITHOUT ROWID`).Execute()
		if err != nil {
			return err
		}
		_, err = app.DB().NewQuery(`CREATE INDEX idx_enrichment_idempotency_created ON {{` + schema.IdempotencyTable + `}} ([[created]])`).Execute()
		return err
	}, func(app core.App) error {
		_, err := app.DB().DropTable(schema.IdempotencyTable).Execute()
		return err
	})
}
