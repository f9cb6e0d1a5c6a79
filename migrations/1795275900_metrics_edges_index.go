package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// One index for the decided (and reverted) revisions at a window's edges in
// the acceptance metrics (store/metrics_window.go), in place of four: ordered
// by reviewedAt first, an edge is one range seek however its revisions
// are spread over statuses, bands and reasons, and it holds the decision
// mask and the model beside them, so the per-field and per-model figures
// come from the same entries. A decision now writes one metrics index
// entry where it wrote three; a rollback's selection reads it too.
func init() {
	m.Register(func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.RemoveIndex(idxRevisionsClientDecided)
			c.RemoveIndex(schema.IdxRevisionsDecidedModel)
			c.RemoveIndex(schema.IdxRevisionsDecidedFields)
			c.RemoveIndex(schema.IdxRevisionsReverted)
			c.AddIndex(schema.IdxRevisionsDecidedEdges, false,
				"organization, apiClient, reviewedAt, status, confidenceBand, reason, decisionMask, model",
				"status IN ('accepted', 'rejected', 'reverted')")
		})
	}, func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.RemoveIndex(schema.IdxRevisionsDecidedEdges)
			c.AddIndex(idxRevisionsClientDecided, false, "organization, apiClient, status, confidenceBand, reason, reviewedAt",
				"status IN ('accepted', 'rejected')")
			c.AddIndex(schema.IdxRevisionsDecidedModel, false,
				"organization, apiClient, status, confidenceBand, reason, reviewedAt, model",
				"status IN ('accepted', 'rejected') AND json_type(model) = 'object'")
			c.AddIndex(schema.IdxRevisionsDecidedFields, false, "organization, apiClient, reviewedAt, decisionMask",
				"status IN ('accepted', 'rejected')")
			c.AddIndex(schema.IdxRevisionsReverted, false,
				"organization, apiClient, reviewedAt, confidenceBand, reason, decisionMask, model", "status = 'reverted'")
		})
	})
}
