package migrations

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// revertedBy holds the id of the reviewer or superuser who rolled a
// revision back. Earlier releases wrote "reviewer:EMAIL" or
// "superuser:EMAIL": each is rewritten to the id of the reviewer or
// superuser with that email. A name whose email matches no one (the
// account was deleted or its email changed since) is left as it is: there
// is no id to give it. Down writes ids back as names.
func init() {
	m.Register(func(app core.App) error {
		for _, who := range revertedByKinds {
			if _, err := app.DB().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[revertedBy]] = (
				SELECT a.[[id]] FROM {{` + who.collection + `}} AS a WHERE {:prefix} || a.[[email]] = {{` + schema.Revisions + `}}.[[revertedBy]])
				WHERE [[revertedBy]] LIKE {:prefix} || '%' AND EXISTS (
				SELECT 1 FROM {{` + who.collection + `}} AS a WHERE {:prefix} || a.[[email]] = {{` + schema.Revisions + `}}.[[revertedBy]])`).
				Bind(map[string]any{"prefix": who.prefix}).Execute(); err != nil {
				return fmt.Errorf("rewrite revertedBy %s names to ids: %w", who.prefix, err)
			}
		}
		return nil
	}, func(app core.App) error {
		for _, who := range revertedByKinds {
			if _, err := app.DB().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[revertedBy]] = (
				SELECT {:prefix} || a.[[email]] FROM {{` + who.collection + `}} AS a WHERE a.[[id]] = {{` + schema.Revisions + `}}.[[revertedBy]])
				WHERE [[revertedBy]] IN (SELECT [[id]] FROM {{` + who.collection + `}})`).
				Bind(map[string]any{"prefix": who.prefix}).Execute(); err != nil {
				return fmt.Errorf("rewrite revertedBy ids to %s names: %w", who.prefix, err)
			}
		}
		return nil
	})
}

// revertedByKinds are the names earlier releases wrote, by the collection
// of the accounts they name.
var revertedByKinds = []struct{ prefix, collection string }{
	{"reviewer:", schema.Reviewers},
	{"superuser:", core.CollectionNameSuperusers},
}
