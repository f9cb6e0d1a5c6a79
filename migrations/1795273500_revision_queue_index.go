package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// The index of the reviewers' queue (store/queue.go): an organization's
// pending revisions in the default order (highest confidence first, then
// oldest), holding every column the queue filters on, so that its pages,
// its counts per band and a revision's position are read from index
// entries alone.
func init() {
	m.Register(func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.AddIndex(schema.IdxRevisionsQueue, false,
				"organization, confidence DESC, created, apiClient, confidenceBand, sku, product, id", "status = 'pending'")
		})
	}, func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.RemoveIndex(schema.IdxRevisionsQueue)
		})
	})
}
