package migrations

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Reviewers together (docs/review.md): a reviewer claims the pending
// revision they open, for a short while, so that no other reviewer decides
// it meanwhile. One claim per revision (a unique index): the service
// writes it with an upsert that only the holder, or anyone once it has
// expired, can win; expiry is a time compared with the clock, so no job
// is needed. Only superusers see claims in the dashboard (they may delete
// one there to free a revision); reviewers go through
// /api/enrichment/review/claims.
//
// The history of decisions (GET /api/enrichment/review/decided) reads an
// organization's decided revisions newest decision first: a partial index
// of the decided revisions by organization and reviewedAt, with the client,
// the reviewer and decidedBy that its filters read, so a page and its count
// come from the index's entries.
func init() {
	m.Register(addReviewClaims, func(app core.App) error {
		if err := changeRevisionIndexes(app, func(c *core.Collection) { c.RemoveIndex(schema.IdxRevisionsDecidedHistory) }); err != nil {
			return err
		}
		return deleteCollections(app, schema.ReviewClaims)
	})
}

func addReviewClaims(app core.App) error {
	orgs, err := app.FindCollectionByNameOrId(schema.Organizations)
	if err != nil {
		return err
	}
	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	reviewers, err := app.FindCollectionByNameOrId(schema.Reviewers)
	if err != nil {
		return err
	}
	claims := core.NewBaseCollection(schema.ReviewClaims)
	claims.Fields.Add(
		organizationField(orgs),
		&core.RelationField{Name: "revision", CollectionId: revisions.Id, MaxSelect: 1, Required: true, CascadeDelete: true},
		&core.RelationField{Name: "reviewer", CollectionId: reviewers.Id, MaxSelect: 1, Required: true, CascadeDelete: true},
		&core.DateField{Name: "expiresAt", Required: true, Help: "The claim holds until this moment unless renewed."},
	)
	addTimestamps(claims)
	claims.AddIndex("idx_review_claims_revision", true, "revision", "")
	claims.AddIndex("idx_review_claims_org", false, "organization, expiresAt", "")
	if err := app.Save(claims); err != nil {
		return fmt.Errorf("%s: %w", schema.ReviewClaims, err)
	}
	return changeRevisionIndexes(app, func(c *core.Collection) {
		c.AddIndex(schema.IdxRevisionsDecidedHistory, false, "organization, reviewedAt, apiClient, reviewer, decidedBy", "reviewedAt != ''")
	})
}
