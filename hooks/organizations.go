package hooks

import (
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// registerOrganizations gives an organization created through the records
// API or the dashboard the default proposal time to live when the request
// does not set one (a number field cannot tell "not given" from 0, which
// means never). The store sets it for organizations made by the command line.
func registerOrganizations(app core.App) {
	app.OnRecordCreateRequest(schema.Organizations).Bind(&hook.Handler[*core.RecordRequestEvent]{
		Id: "enrichmentDefaultProposalTTL",
		Func: func(e *core.RecordRequestEvent) error {
			info, err := e.RequestInfo()
			if err != nil {
				return err
			}
			if v, given := info.Body["proposalTtlDays"]; !given || v == nil || v == "" {
				e.Record.Set("proposalTtlDays", enrichment.DefaultProposalTTLDays)
			}
			return e.Next()
		},
	})
}
