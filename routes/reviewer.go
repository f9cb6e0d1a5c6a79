package routes

import (
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

// reviewedOrgs are the organizations whose review the signed-in identity
// asks for: a reviewer's own; for a superuser every organization, or the
// one named by ?organization=ID.
func reviewedOrgs(e *core.RequestEvent) ([]enrichment.Org, error) {
	asked := e.Request.URL.Query().Get("organization")
	if !e.HasSuperuserAuth() {
		own := enrichment.Org(e.Auth.GetString("organization"))
		if asked != "" && asked != string(own) {
			return nil, e.NotFoundError("No such organization.", nil)
		}
		return []enrichment.Org{own}, nil
	}
	if asked != "" {
		if _, err := enrichment.ParseID(asked); err != nil {
			return nil, e.BadRequestError("Invalid organization: must be an organization id.",
				validation.Errors{"organization": validation.NewError("validation_invalid_id", "must be an organization id")})
		}
		ok, err := store.New(e.App).Accounts().OrgExists(enrichment.Org(asked))
		if err != nil {
			return nil, internalError(e, "find organization", err)
		}
		if !ok {
			return nil, e.NotFoundError("No such organization.", nil)
		}
		return []enrichment.Org{enrichment.Org(asked)}, nil
	}
	orgs, err := store.New(e.App).Accounts().Organizations()
	if err != nil {
		return nil, internalError(e, "list organizations", err)
	}
	return orgs, nil
}
