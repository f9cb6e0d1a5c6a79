package migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// idxRevisionsOrgStatus is an organization's revisions by status and id.
const idxRevisionsOrgStatus = "idx_revisions_org_status"

// The organization-wide index by status holds only the pending revisions:
// the queries that use it ask for pending ones (the bulk accept's and a
// trust policy's candidates), and
// every revision leaves pending once. A revision that a newer proposal
// supersedes, or that is decided or expires, is then deleted from the
// index instead of moved within it: one index write less for each, and an
// index the size of the queue rather than of the history. (The other
// organization-wide readers of every status are maintenance, the metrics
// recount, which reads most revisions anyway; the pending audits read
// their own index.)
func init() {
	m.Register(func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.RemoveIndex(idxRevisionsOrgStatus)
			c.AddIndex(idxRevisionsOrgStatus, false, "organization, status, CAST(id AS INTEGER)", "status = 'pending'")
		})
	}, func(app core.App) error {
		return changeRevisionIndexes(app, func(c *core.Collection) {
			c.RemoveIndex(idxRevisionsOrgStatus)
			c.AddIndex(idxRevisionsOrgStatus, false, "organization, status, CAST(id AS INTEGER)", "")
		})
	})
}
