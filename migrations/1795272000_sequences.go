package migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// SequenceTable holds the last number handed out per collection, so numeric
// ids are never reused, even after the newest record is deleted.
const SequenceTable = "_enrichment_seq"

func init() {
	m.Register(func(app core.App) error {
		_, err := app.DB().NewQuery(`CREATE TABLE {{` + SequenceTable + `}} (
			[[name]] TEXT PRIMARY KEY NOT NULL,
			[[last]] INTEGER NOT NULL DEFAULT 0
		)`).Execute()
		return err
	}, func(app core.App) error {
		_, err := app.DB().DropTable(SequenceTable).Execute()
		return err
	})
}
