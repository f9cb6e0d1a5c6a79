package migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// IdempotencyTable keeps, per API client and externalSubmissionId, the hash
// of the first request and the response it got, so a retry is answered the
// same. It is internal, hence a plain table rather than a collection.
const IdempotencyTable = "_enrichment_idempotency"

func init() {
	m.Register(func(app core.App) error {
		_, err := app.DB().NewQuery(`CREATE TABLE {{` + IdempotencyTable + `}} (
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
		_, err = app.DB().NewQuery(`CREATE INDEX idx_enrichment_idempotency_created ON {{` + IdempotencyTable + `}} ([[created]])`).Execute()
		return err
	}, func(app core.App) error {
		_, err := app.DB().DropTable(IdempotencyTable).Execute()
		return err
	})
}
