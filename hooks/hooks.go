// Package hooks binds the service's record hooks: side effects of saves made
// through the dashboard, the records API or Go code alike.
package hooks

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
)

// Register binds every hook of the service to app.
func Register(app core.App) {
	registerIDs(app)
	registerOrganizations(app)
	registerAPIClients(app)
	registerClientCatalogs(app)
	hideFromEveryone(app, schema.Webhooks, "secret") // sealed, and still never shown
	registerProducts(app)
	registerRevisions(app)
	registerRevisionReview(app)
	registerTrustPolicies(app)
}

// recordID reads the numeric id of a record of ours.
func recordID(r *core.Record) (int64, error) {
	id, err := enrichment.ParseID(r.Id)
	if err != nil {
		return 0, fmt.Errorf("%s record: %w", r.Collection().Name, err)
	}
	return id, nil
}
