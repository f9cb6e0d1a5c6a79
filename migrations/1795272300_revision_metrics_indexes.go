package migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Indexes of one API client's revisions, for the acceptance metrics
// (store/metrics.go) and the revisions list (store/revisions.go). Each holds
// every column its query filters on, so counting and skipping never read the
// records themselves (whose proposed and base JSON are most of their size).
const (
	idxRevisionsReviewed = "idx_revisions_client_reviewed"
	idxRevisionsPending  = "idx_revisions_client_created"
	idxRevisionsList     = "idx_revisions_client_list"
)

func init() {
	m.Register(func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			// decided revisions, grouped by status and band in index order,
			// with the window a range on reviewedAt within each group
			c.AddIndex(idxRevisionsReviewed, false, "organization, apiClient, status, confidenceBand, reviewedAt", "")
			// pending revisions, counted with the window a range on created
			c.AddIndex(idxRevisionsPending, false, "organization, apiClient, status, created", "")
			// GET /revisions: a client's revisions in numeric id order, with
			// every filtered column, so counting, filtering and skipping to a
			// page read the index alone and only the page's records are read
			c.AddIndex(idxRevisionsList, false, "organization, apiClient, CAST(id AS INTEGER), status, sku, created, reviewedAt", "")
		})
	}, func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.RemoveIndex(idxRevisionsReviewed)
			c.RemoveIndex(idxRevisionsPending)
			c.RemoveIndex(idxRevisionsList)
		})
	})
}

// changeRevisionIndexes applies change to the revisions collection and saves it.
func changeRevisionIndexes(app core.App, change func(c *core.Collection)) error {
	c, err := app.FindCollectionByNameOrId("revisions")
	if err != nil {
		return fmt.Errorf("revisions: %w", err)
	}
	change(c)
	if err := app.Save(c); err != nil {
		return fmt.Errorf("revisions metrics indexes: %w", err)
	}
	return nil
}
