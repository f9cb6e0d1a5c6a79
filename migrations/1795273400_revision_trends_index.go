package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// The index of an organization's decided revisions by reviewedAt, with their
// client and confidence, for the reviewers' overview (store/trends.go): the
// weekly counts read a range of it, the calibration the whole of it, and
// neither reads a revision record.
func init() {
	m.Register(func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.AddIndex(schema.IdxRevisionsDecidedTrends, false,
				"organization, status, reviewedAt, apiClient, confidenceBand, confidence", "status IN ('accepted', 'rejected')")
		})
	}, func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.RemoveIndex(schema.IdxRevisionsDecidedTrends)
		})
	})
}
