package routes

import (
	"github.com/catalog-enrichment/enrichment/schema"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// policyOrganizationNamed answers a reviewer's create of a trust policy
// that names no organization with a 400 naming the field. The
// collection's create rule needs it named, and PocketBase checks that rule
// before any record hook runs, answering only "Failed to create record.".
func policyOrganizationNamed() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "enrichmentPolicyOrganizationNamed",
		Func: func(e *core.RequestEvent) error {
			if !onCollectionRoute(e, "POST /api/collections/{collection}/records", schema.TrustPolicies) || e.Auth == nil ||
				e.Auth.Collection().Name != schema.Reviewers {
				return e.Next()
			}
			info, err := e.RequestInfo()
			if err != nil {
				return e.Next() // note: the records API answers an unreadable body itself
			}
			if org, given := info.Body["organization"]; !given || org == nil || org == "" {
				return e.BadRequestError("A trust policy names its organization (a reviewer's own).", validation.Errors{
					"organization": validation.NewError("validation_required", "Cannot be blank: the organization the policy belongs to.")})
			}
			return e.Next()
		},
	}
}
