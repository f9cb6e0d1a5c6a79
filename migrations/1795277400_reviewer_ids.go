package migrations

import (
	"fmt"
	"strings"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// reviewer holds the id of the reviewer or superuser who decided a
// revision, and auditedBy of the one who closed its audit, as revertedBy
// does for a rollback. Earlier releases wrote "reviewer:EMAIL" or
// "superuser:EMAIL": each is rewritten to the id of the account with that
// email, and a name whose email matches no one is left as it is. A trust
// policy's "policy:ID" and the service's "system" stay. Down writes ids
// back as names.
func init() {
	columns := []string{"reviewer", "auditedBy"}
	m.Register(func(app core.App) error {
		for _, column := range columns {
			if err := actorNamesToIDs(app, column); err != nil {
				return err
			}
		}
		return nil
	}, func(app core.App) error {
		for _, column := range columns {
			if err := actorIDsToNames(app, column); err != nil {
				return err
			}
		}
		return nil
	})
}

// actorNames are the names earlier releases wrote for a person acting on a
// revision, by the collection of the accounts they name.
var actorNames = []struct{ prefix, collection string }{
	{"reviewer:", schema.Reviewers},
	{"superuser:", core.CollectionNameSuperusers},
}

// actorNamesToIDs rewrites each "reviewer:EMAIL" or "superuser:EMAIL" in
// the revisions' column to the id of the account with that email, leaving
// a name that matches no one. One pass over the revisions, joined to every
// account's name: 900,000 names of a million revisions took 18 s of the
// first start here, the writing of the rows most of it.
func actorNamesToIDs(app core.App, column string) error {
	accounts := make([]string, 0, len(actorNames))
	for _, who := range actorNames {
		accounts = append(accounts, `SELECT '`+who.prefix+`' || [[email]] AS [[name]], [[id]] FROM {{`+who.collection+`}}`)
	}
	if _, err := app.DB().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[` + column + `]] = a.[[id]]
		FROM (` + strings.Join(accounts, " UNION ALL ") + `) AS a
		WHERE {{` + schema.Revisions + `}}.[[` + column + `]] = a.[[name]]`).Execute(); err != nil {
		return fmt.Errorf("rewrite the %s names of accounts to their ids: %w", column, err)
	}
	return nil
}

// actorIDsToNames undoes actorNamesToIDs.
func actorIDsToNames(app core.App, column string) error {
	for _, who := range actorNames {
		if _, err := app.DB().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[` + column + `]] = (
			SELECT {:prefix} || a.[[email]] FROM {{` + who.collection + `}} AS a WHERE a.[[id]] = {{` + schema.Revisions + `}}.[[` + column + `]])
			WHERE [[` + column + `]] IN (SELECT [[id]] FROM {{` + who.collection + `}})`).
			Bind(map[string]any{"prefix": who.prefix}).Execute(); err != nil {
			return fmt.Errorf("rewrite %s ids to %s names: %w", column, who.prefix, err)
		}
	}
	return nil
}
