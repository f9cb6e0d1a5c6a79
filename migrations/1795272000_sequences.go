package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

func init() {
	m.Register(func(app core.App) error {
		_, err := app.DB().NewQuery(`CREATE TABLE {{` + schema.SequenceTable + `}} (
			[[name]] TEXT PRIMARY KEY NOT NULL,
			[[last]] INTEGER NOT NULL DEFAULT 0
		)`).Execute()
		return err
	}, func(app core.App) error {
		_, err := app.DB().DropTable(schema.SequenceTable).Execute()
		return err
	})
}
