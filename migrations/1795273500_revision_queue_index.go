package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// The reviewers' queue (store/queue.go) orders and counts an organization's
// pending revisions by confidence and band, ties in submission order (the
// rowid). The index of pending revisions by client and product, which
// supersession already keeps, gains those two small columns, so that the
// queue's order, its counts and a revision's position are read from its
// entries alone. An index of its own, or this one widened with the
// submission time and the SKU too, cost writers 12-18% of their speed.
func init() {
	m.Register(func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.AddIndex(schema.IdxRevisionsPendingProduct, false,
				"organization, apiClient, product, confidence, confidenceBand", "status = 'pending'")
		})
	}, func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.AddIndex(schema.IdxRevisionsPendingProduct, false, "organization, apiClient, product", "status = 'pending'")
		})
	})
}
