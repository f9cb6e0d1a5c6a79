package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// A rolled-back revision's closedAt is the moment of its rollback, its
// final state, so that a vendor polling its revisions by `since` sees it
// (earlier releases kept the decision's). Down puts the decision's back:
// a decision closes its revision when it is made (reviewedAt).
func init() {
	m.Register(func(app core.App) error {
		return execAll(app, []string{`UPDATE {{` + schema.Revisions + `}} SET [[closedAt]] = [[revertedAt]]
			WHERE [[status]] = 'reverted' AND [[revertedAt]] != '' AND [[closedAt]] != [[revertedAt]]`})
	}, func(app core.App) error {
		return execAll(app, []string{`UPDATE {{` + schema.Revisions + `}} SET [[closedAt]] = [[reviewedAt]]
			WHERE [[status]] = 'reverted' AND [[reviewedAt]] != ''`})
	})
}
