package migrations

import (
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// reviewerOfOrg admits a signed-in reviewer to the records of their own organization.
const reviewerOfOrg = "@request.auth.collectionName = 'reviewers' && organization = @request.auth.organization"

func init() {
	m.Register(createReview, func(app core.App) error {
		return deleteCollections(app, "revisions", "reviewers")
	})
}

// createReview adds the reviewers and the revisions they decide, and opens
// each organization's catalog to its own reviewers, read-only.
func createReview(app core.App) error {
	orgs, err := app.FindCollectionByNameOrId("organizations")
	if err != nil {
		return err
	}

	reviewers := core.NewAuthCollection("reviewers")
	reviewers.Fields.Add(
		organizationField(orgs),
		&core.TextField{Name: "name", Max: 200},
	)
	addTimestamps(reviewers)
	reviewers.ListRule = ptr("id = @request.auth.id")
	reviewers.ViewRule = ptr("id = @request.auth.id")
	if err := app.Save(reviewers); err != nil {
		return fmt.Errorf("reviewers: %w", err)
	}

	clients, err := app.FindCollectionByNameOrId("api_clients")
	if err != nil {
		return err
	}
	products, err := app.FindCollectionByNameOrId("products")
	if err != nil {
		return err
	}

	revisions := newNumericCollection("revisions")
	revisions.Fields.Add(
		organizationField(orgs),
		&core.RelationField{Name: "apiClient", CollectionId: clients.Id, MaxSelect: 1, Required: true, CascadeDelete: true},
		// note: not required, so deleting a product empties it instead of failing;
		// the review hook then refuses the decision
		&core.RelationField{Name: "product", CollectionId: products.Id, MaxSelect: 1},
		&core.TextField{Name: "sku", Max: 200},
		&core.NumberField{Name: "confidence", OnlyInt: true},
		// empty when submitted without confidence: such revisions are in no band
		&core.SelectField{Name: "confidenceBand", MaxSelect: 1, Values: []string{"0-49", "50-79", "80-100"}},
		&core.JSONField{Name: "proposed"}, // the proposed enrichable fields
		&core.JSONField{Name: "base"},     // the product's values of those fields at submission
		&core.SelectField{Name: "status", Required: true, MaxSelect: 1,
			Values: []string{"pending", "accepted", "rejected"}},
		&core.SelectField{Name: "approvedFields", MaxSelect: 5, Values: []string{"name", "slug", "description", "attributes", "files"}},
		&core.DateField{Name: "reviewedAt"},
		&core.TextField{Name: "reviewer", Max: 300},
		&core.TextField{Name: "externalSubmissionId", Max: 300},
	)
	addTimestamps(revisions)
	numericIDIndex(revisions)
	revisions.AddIndex("idx_revisions_org_status", false, "organization, status, CAST(id AS INTEGER)", "")
	revisions.AddIndex("idx_revisions_client", false, "apiClient, CAST(id AS INTEGER)", "")
	revisions.AddIndex("idx_revisions_product", false, "product", "")
	revisions.ListRule = ptr(reviewerOfOrg)
	revisions.ViewRule = ptr(reviewerOfOrg)
	revisions.UpdateRule = ptr(reviewerOfOrg)
	if err := app.Save(revisions); err != nil {
		return fmt.Errorf("revisions: %w", err)
	}

	// reviewers read their own organization's catalog and API clients
	for _, name := range []string{"products", "attribute_templates", "attribute_options", "brands", "api_clients"} {
		c, err := app.FindCollectionByNameOrId(name)
		if err != nil {
			return err
		}
		c.ListRule = ptr(reviewerOfOrg)
		c.ViewRule = ptr(reviewerOfOrg)
		if err := app.Save(c); err != nil {
			return fmt.Errorf("%s rules: %w", name, err)
		}
	}
	orgs.ViewRule = ptr("@request.auth.collectionName = 'reviewers' && id = @request.auth.organization")
	if err := app.Save(orgs); err != nil {
		return fmt.Errorf("organizations rules: %w", err)
	}
	return nil
}
