package migrations

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
	"github.com/pocketbase/pocketbase/tools/types"
)

// The review loop closes (docs/review.md): revisions can end superseded or
// expired, every final state has closedAt, a decision may carry a reason
// and a comment, and organizations say how long proposals may wait and
// whether a reason is required.
func init() {
	m.Register(addReviewLoop, removeReviewLoop)
}

// Indexes of this migration.
const (
	// superseded and expired revisions of a client by closedAt: metrics
	idxRevisionsClientClosed = "idx_revisions_client_closed"
	// decided revisions with their reason: metrics (replaces idx_revisions_client_reviewed)
	idxRevisionsClientDecided = "idx_revisions_client_decided"
	// GET /revisions with closedAt (replaces idx_revisions_client_list)
	idxRevisionsClientListed = "idx_revisions_client_listed"
	// who supersedes whom: PocketBase looks the references of a deleted revision up by it
	idxRevisionsSupersededBy = "idx_revisions_superseded_by"
)

func addReviewLoop(app core.App) error {
	orgs, err := app.FindCollectionByNameOrId(schema.Organizations)
	if err != nil {
		return err
	}
	orgs.Fields.Add(
		&core.NumberField{Name: "proposalTtlDays", OnlyInt: true, Min: types.Pointer(0.0),
			Help: "Days a proposal may wait for review before it expires; 0: never. New organizations start at 90."},
		&core.BoolField{Name: "requireReason",
			Help: "Whether rejecting a proposal, or approving only part of it, needs a reason."},
	)
	if err := app.Save(orgs); err != nil {
		return fmt.Errorf("organizations: %w", err)
	}
	if _, err := app.DB().NewQuery("UPDATE {{organizations}} SET [[proposalTtlDays]] = 90").Execute(); err != nil {
		return fmt.Errorf("organizations' proposal time to live: %w", err)
	}

	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	status := revisions.Fields.GetByName("status").(*core.SelectField)
	status.Values = []string{"pending", "accepted", "rejected", "superseded", "expired"}
	fields := []string{"name", "slug", "description", "attributes", "files"}
	revisions.Fields.Add(
		&core.SelectField{Name: "supersededFields", MaxSelect: 5, Values: fields,
			Help: "Proposed fields that a newer proposal of the same client for the same product replaced."},
		&core.RelationField{Name: "supersededBy", CollectionId: revisions.Id, MaxSelect: 1,
			Help: "The newer revision that superseded this one."},
		&core.DateField{Name: "closedAt", Help: "When the revision reached its final state."},
		&core.SelectField{Name: "reason", MaxSelect: 1,
			Values: []string{"inaccurate", "low_quality", "off_brand", "incomplete", "duplicate", "other"},
			Help:   "Why something was not applied (a rejection or a partial approval); set with the decision."},
		&core.TextField{Name: "comment", Max: 2000, Help: "The reviewer's comment to the vendor; set with the decision."},
	)
	revisions.RemoveIndex("idx_revisions_client_reviewed")
	revisions.RemoveIndex("idx_revisions_client_list")
	// note: the partial indexes hold a revision only in the states their
	// queries ask for, so storing a new (pending) revision does not write
	// the metrics' indexes of final states
	revisions.AddIndex(schema.IdxRevisionsPendingProduct, false, "organization, apiClient, product", "status = 'pending'")
	revisions.AddIndex(idxRevisionsClientClosed, false, "organization, apiClient, status, closedAt", "status IN ('superseded', 'expired')")
	revisions.AddIndex(idxRevisionsClientDecided, false, "organization, apiClient, status, confidenceBand, reason, reviewedAt",
		"status IN ('accepted', 'rejected')")
	revisions.AddIndex(idxRevisionsClientListed, false, "organization, apiClient, CAST(id AS INTEGER), status, sku, created, closedAt", "")
	revisions.AddIndex(idxRevisionsSupersededBy, false, "supersededBy", "supersededBy != ''")
	if err := app.Save(revisions); err != nil {
		return fmt.Errorf("revisions: %w", err)
	}
	// decisions made before this release closed their revisions when made
	_, err = app.DB().NewQuery(`UPDATE {{revisions}} SET [[closedAt]] = [[reviewedAt]]
		WHERE [[status]] IN ('accepted', 'rejected') AND [[closedAt]] = ''`).Execute()
	return err
}

func removeReviewLoop(app core.App) error {
	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	for _, name := range []string{schema.IdxRevisionsPendingProduct, idxRevisionsClientClosed,
		idxRevisionsClientDecided, idxRevisionsClientListed, idxRevisionsSupersededBy} {
		revisions.RemoveIndex(name)
	}
	revisions.AddIndex("idx_revisions_client_reviewed", false, "organization, apiClient, status, confidenceBand, reviewedAt", "")
	revisions.AddIndex("idx_revisions_client_list", false, "organization, apiClient, CAST(id AS INTEGER), status, sku, created, reviewedAt", "")
	for _, name := range []string{"supersededFields", "supersededBy", "closedAt", "reason", "comment"} {
		revisions.Fields.RemoveByName(name)
	}
	status := revisions.Fields.GetByName("status").(*core.SelectField)
	status.Values = []string{"pending", "accepted", "rejected"}
	if err := app.Save(revisions); err != nil {
		return err
	}
	orgs, err := app.FindCollectionByNameOrId(schema.Organizations)
	if err != nil {
		return err
	}
	orgs.Fields.RemoveByName("proposalTtlDays")
	orgs.Fields.RemoveByName("requireReason")
	return app.Save(orgs)
}
