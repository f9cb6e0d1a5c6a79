package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// The index of an organization's decided revisions by client, with their
// confidence, for the reviewers' overview (store/trends.go): the decisions
// by confidence read it in its own order, without a revision record (the
// weeks come from the metric counters).
func init() {
	m.Register(func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.AddIndex(schema.IdxRevisionsDecidedTrends, false,
				"organization, status, apiClient, confidenceBand, confidence", "status IN ('accepted', 'rejected')")
		})
	}, func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.RemoveIndex(schema.IdxRevisionsDecidedTrends)
		})
	})
}
