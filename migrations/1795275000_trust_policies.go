package migrations

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Trust policies (docs/review.md): per organization, a policy lets an API
// client's proven proposals be accepted without a person, under audit.
//
//   - trust_policies: what reviewers set (apiClient, template, fields,
//     minConfidence, targetPrecision, minReviewed, auditRate, enabled) and
//     what the service sets (state, measuredPrecision, measuredReviewed,
//     stateChangedAt, stateReason, enabledAt);
//   - revisions gain decidedBy ("reviewer" or "policy"; the decided
//     revisions stored before become "reviewer"), policy, and the audit
//     fields audit, auditedAt, auditedBy;
//   - the trust counters count the revisions people decided per client,
//     product template, confidence, day of the decision, proposed fields and
//     fields applied without correction, so that a policy's measurement is
//     a sum of a few rows; the revisions decided before are counted here;
//   - the metric counters gain autoAccepted (none before).
//
// An earlier data folder starts with no policies.
func init() {
	m.Register(addTrustPolicies, dropTrustPolicies)
}

func addTrustPolicies(app core.App) error {
	orgs, err := app.FindCollectionByNameOrId(schema.Organizations)
	if err != nil {
		return err
	}
	clients, err := app.FindCollectionByNameOrId(schema.APIClients)
	if err != nil {
		return err
	}
	templates, err := app.FindCollectionByNameOrId(schema.AttributeTemplates)
	if err != nil {
		return err
	}
	fields := []string{"name", "slug", "description", "attributes", "files"}
	policies := newNumericCollection(schema.TrustPolicies)
	policies.Fields.Add(
		organizationField(orgs),
		&core.RelationField{Name: "apiClient", CollectionId: clients.Id, MaxSelect: 1, Required: true, CascadeDelete: true},
		&core.RelationField{Name: "template", CollectionId: templates.Id, MaxSelect: 1,
			Help: "Only products of this attribute template; empty for every product."},
		&core.SelectField{Name: "fields", MaxSelect: 5, Values: fields, Required: true,
			Help: "The fields the policy may accept; a revision proposing any other goes to people."},
		&core.NumberField{Name: "minConfidence", OnlyInt: true, Min: types.Pointer(0.0), Max: types.Pointer(100.0)},
		&core.NumberField{Name: "targetPrecision", Help: "0.5..1; 0.95 when not given."},
		&core.NumberField{Name: "minReviewed", OnlyInt: true, Help: "At least 20; 200 when not given."},
		&core.NumberField{Name: "auditRate", Help: "0.01..1; 0.05 when not given."},
		&core.BoolField{Name: "enabled"},
		&core.SelectField{Name: "state", MaxSelect: 1, Values: []string{"learning", "active", "suspended"},
			Help: "Set by the service."},
		&core.NumberField{Name: "measuredPrecision", Help: "Set by the service."},
		&core.NumberField{Name: "measuredReviewed", OnlyInt: true, Help: "Set by the service."},
		&core.DateField{Name: "stateChangedAt", Help: "Set by the service."},
		&core.TextField{Name: "stateReason", Max: 500, Help: "Set by the service."},
		&core.DateField{Name: "enabledAt", Help: "Set by the service: audits closed before it do not count towards a suspension."},
	)
	addTimestamps(policies)
	numericIDIndex(policies)
	policies.AddIndex("idx_trust_policies_org_client", false, "organization, apiClient", "")
	policies.ListRule = ptr(reviewerOfOrg)
	policies.ViewRule = ptr(reviewerOfOrg)
	policies.CreateRule = ptr("@request.auth.collectionName = 'reviewers' && @request.body.organization = @request.auth.organization")
	policies.UpdateRule = ptr(reviewerOfOrg + " && (@request.body.organization:isset = false || @request.body.organization = @request.auth.organization)")
	if err := app.Save(policies); err != nil {
		return fmt.Errorf("trust policies: %w", err)
	}

	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	revisions.Fields.Add(
		&core.SelectField{Name: "decidedBy", MaxSelect: 1, Values: []string{"reviewer", "policy"},
			Help: "Who decided: a reviewer or a trust policy (set by the service)."},
		&core.RelationField{Name: "policy", CollectionId: policies.Id, MaxSelect: 1,
			Help: "The trust policy that decided (set by the service)."},
		&core.SelectField{Name: "audit", MaxSelect: 1, Values: []string{"pending", "confirmed", "reverted"},
			Help: "For a revision a policy accepted and drew for audit: a reviewer closes it with confirmed or reverted."},
		&core.DateField{Name: "auditedAt", Help: "When the audit was closed (set by the service)."},
		&core.TextField{Name: "auditedBy", Max: 300, Help: "Who closed the audit (set by the service)."},
	)
	revisions.AddIndex(schema.IdxRevisionsAudit, false, "organization, audit, CAST(id AS INTEGER)", "audit != ''")
	revisions.AddIndex(schema.IdxRevisionsPolicyAudits, false, "policy, auditedAt", "audit IN ('confirmed', 'reverted')")
	if err := app.Save(revisions); err != nil {
		return fmt.Errorf("revisions: %w", err)
	}

	// note: the mask's bits as in 1795274710 (proposed 0..4, applied
	// 5..9, corrected 10..14)
	return execAll(app, []string{
		`UPDATE revisions SET decidedBy = 'reviewer' WHERE status IN ('accepted', 'rejected')`,
		`CREATE TABLE ` + schema.TrustCountsTable + ` (
			organization TEXT NOT NULL,
			client       TEXT NOT NULL,
			template     TEXT NOT NULL,
			confidence   INTEGER NOT NULL,
			day          TEXT NOT NULL,
			proposed     INTEGER NOT NULL,
			clean        INTEGER NOT NULL,
			n            INTEGER NOT NULL DEFAULT 0,
			PRIMARY KEY (organization, client, day, template, confidence, proposed, clean)
		) WITHOUT ROWID`,
		`CREATE TRIGGER ` + schema.TrustCountsOrgTrigger + ` AFTER DELETE ON organizations
		BEGIN DELETE FROM ` + schema.TrustCountsTable + ` WHERE organization = OLD.id; END`,
		`INSERT INTO ` + schema.TrustCountsTable + ` (organization, client, template, confidence, day, proposed, clean, n)
		SELECT r.organization, r.apiClient, COALESCE(p.attributeTemplate, ''),
			CASE WHEN r.confidenceBand = '' THEN -1 ELSE r.confidence END,
			strftime('%Y-%m-%d', r.reviewedAt), r.decisionMask & 31,
			((r.decisionMask >> 5) & 31) & ~((r.decisionMask >> 10) & 31), COUNT(*)
		FROM revisions r LEFT JOIN products p ON p.id = r.product
		WHERE r.status IN ('accepted', 'rejected') AND r.reviewedAt != ''
		GROUP BY 1, 2, 3, 4, 5, 6, 7`,
		`ALTER TABLE ` + schema.MetricCountsTable + ` ADD COLUMN autoAccepted INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE ` + schema.ModelCountsTable + ` ADD COLUMN autoAccepted INTEGER NOT NULL DEFAULT 0`,
	})
}

func dropTrustPolicies(app core.App) error {
	if err := execAll(app, []string{
		"DROP TRIGGER IF EXISTS " + schema.TrustCountsOrgTrigger,
		"DROP TABLE IF EXISTS " + schema.TrustCountsTable,
		`ALTER TABLE ` + schema.MetricCountsTable + ` DROP COLUMN autoAccepted`,
		`ALTER TABLE ` + schema.ModelCountsTable + ` DROP COLUMN autoAccepted`,
	}); err != nil {
		return err
	}
	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	for _, name := range []string{"decidedBy", "policy", "audit", "auditedAt", "auditedBy"} {
		revisions.Fields.RemoveByName(name)
	}
	revisions.RemoveIndex(schema.IdxRevisionsAudit)
	revisions.RemoveIndex(schema.IdxRevisionsPolicyAudits)
	if err := app.Save(revisions); err != nil {
		return fmt.Errorf("revisions: %w", err)
	}
	return deleteCollections(app, schema.TrustPolicies)
}
