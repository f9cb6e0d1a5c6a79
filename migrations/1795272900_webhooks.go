package migrations

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Vendors are told (docs/webhooks.md): their webhook subscriptions and the
// deliveries of the events, an outbox written in the transaction of the
// state change that causes each event; and the change feed of each
// organization's products, kept by triggers (and by the import and the
// products hook for inserts, which no trigger sees).
func init() {
	m.Register(addWebhooksAndChanges, removeWebhooksAndChanges)
}

// readOnlyForReviewers lets an organization's reviewers list and view the
// records, never change them.
func readOnlyForReviewers(c *core.Collection) {
	c.ListRule = ptr(reviewerOfOrg)
	c.ViewRule = ptr(reviewerOfOrg)
}

func addWebhooksAndChanges(app core.App) error {
	orgs, err := app.FindCollectionByNameOrId(schema.Organizations)
	if err != nil {
		return err
	}
	clients, err := app.FindCollectionByNameOrId(schema.APIClients)
	if err != nil {
		return err
	}
	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	events := []string{"revision.accepted", "revision.rejected", "revision.superseded", "revision.expired", "ping"}

	hooks := newNumericCollection(schema.Webhooks)
	hooks.Fields.Add(
		organizationField(orgs),
		&core.RelationField{Name: "apiClient", CollectionId: clients.Id, MaxSelect: 1, Required: true, CascadeDelete: true},
		&core.URLField{Name: "url", Required: true},
		&core.SelectField{Name: "events", Required: true, MaxSelect: len(events), Values: events},
		&core.BoolField{Name: "active"},
		// note: encrypted at rest (webhooks/secrets.go), hidden, and the
		// records API hook hides it from superusers too
		&core.TextField{Name: "secret", Required: true, Hidden: true, Max: 500},
		&core.DateField{Name: "failingSince", Help: "Since when every delivery has failed; empty while deliveries succeed."},
	)
	addTimestamps(hooks)
	numericIDIndex(hooks)
	hooks.AddIndex("idx_webhooks_client", false, "organization, apiClient", "")
	readOnlyForReviewers(hooks)
	if err := app.Save(hooks); err != nil {
		return fmt.Errorf("webhooks: %w", err)
	}

	deliveries := newNumericCollection(schema.WebhookDeliveries)
	deliveries.Fields.Add(
		organizationField(orgs),
		&core.RelationField{Name: "webhook", CollectionId: hooks.Id, MaxSelect: 1, Required: true, CascadeDelete: true},
		&core.SelectField{Name: "event", Required: true, MaxSelect: 1, Values: events},
		// note: not required, and no cascade: revisions are deleted only
		// with their organization, which takes the deliveries with it
		&core.RelationField{Name: "revision", CollectionId: revisions.Id, MaxSelect: 1},
		&core.JSONField{Name: "payload", MaxSize: 1 << 20, Help: "The body sent, the same on every attempt."},
		&core.SelectField{Name: "status", Required: true, MaxSelect: 1, Values: []string{"pending", "delivered", "failed"}},
		&core.NumberField{Name: "attempts", OnlyInt: true},
		&core.NumberField{Name: "lastStatusCode", OnlyInt: true},
		&core.TextField{Name: "lastError", Max: 1000},
		&core.DateField{Name: "nextAttemptAt"},
		&core.DateField{Name: "deliveredAt"},
	)
	addTimestamps(deliveries)
	numericIDIndex(deliveries)
	deliveries.AddIndex("idx_webhook_deliveries_list", false, "webhook, CAST(id AS INTEGER)", "")
	// pending deliveries, by subscription and by when: the dispatcher takes
	// the oldest due one of each subscription in turn, and sleeps until the
	// next one is due
	deliveries.AddIndex(schema.IdxWebhookDeliveriesDue, false, "webhook, nextAttemptAt", "status = 'pending'")
	deliveries.AddIndex(schema.IdxWebhookDeliveriesNext, false, "nextAttemptAt", "status = 'pending'")
	deliveries.AddIndex("idx_webhook_deliveries_revision", false, "revision", "revision != ''")
	readOnlyForReviewers(deliveries)
	if err := app.Save(deliveries); err != nil {
		return fmt.Errorf("webhook_deliveries: %w", err)
	}

	return execAll(app, changeFeedStatements())
}

// changeFeedStatements create the change feed: one row per product change
// in commit order (SQLite has one writer, so the sequence is the commit
// order), and the triggers that write it for updates and deletions.
func changeFeedStatements() []string {
	row := func(org, product, sku, change string) string {
		return `INSERT INTO ` + schema.ChangesTable + ` (organization, product, sku, change, at)
			VALUES (` + org + `, ` + product + `, ` + sku + `, '` + change + `', strftime('%Y-%m-%d %H:%M:%fZ', 'now'));`
	}
	t := schema.ChangeTriggers
	return []string{
		`CREATE TABLE ` + schema.ChangesTable + ` (
			seq          INTEGER PRIMARY KEY AUTOINCREMENT,
			organization TEXT NOT NULL,
			product      TEXT NOT NULL,
			sku          TEXT NOT NULL,
			change       TEXT NOT NULL,
			at           TEXT NOT NULL
		)`,
		`CREATE INDEX idx_enrichment_changes_org ON ` + schema.ChangesTable + ` (organization, seq)`,
		// the sequence below which changes were purged: older cursors are gone
		`CREATE TABLE ` + schema.ChangesHorizonTable + ` (
			id      INTEGER PRIMARY KEY CHECK (id = 1),
			purged  INTEGER NOT NULL
		)`,
		`INSERT INTO ` + schema.ChangesHorizonTable + ` (id, purged) VALUES (1, 0)`,
		// a change of a product in the export (or that moves it in or out)
		`CREATE TRIGGER ` + t[0] + ` AFTER UPDATE ON products
		WHEN NEW.active AND (NOT OLD.active OR OLD.organization IS NOT NEW.organization OR OLD.id IS NOT NEW.id
			OR OLD.updated IS NOT NEW.updated)
		BEGIN ` + row("NEW.organization", "NEW.id", "NEW.sku", "upsert") + ` END`,
		`CREATE TRIGGER ` + t[1] + ` AFTER UPDATE OF active, organization, id ON products
		WHEN OLD.active AND (NOT NEW.active OR OLD.organization IS NOT NEW.organization OR OLD.id IS NOT NEW.id)
		BEGIN ` + row("OLD.organization", "OLD.id", "OLD.sku", "remove") + ` END`,
		`CREATE TRIGGER ` + t[2] + ` AFTER DELETE ON products WHEN OLD.active
		BEGIN ` + row("OLD.organization", "OLD.id", "OLD.sku", "remove") + ` END`,
		`CREATE TRIGGER ` + t[3] + ` AFTER DELETE ON organizations
		BEGIN DELETE FROM ` + schema.ChangesTable + ` WHERE organization = OLD.id; END`,
	}
}

func removeWebhooksAndChanges(app core.App) error {
	drops := []string{"DROP TABLE IF EXISTS " + schema.ChangesTable, "DROP TABLE IF EXISTS " + schema.ChangesHorizonTable}
	for _, name := range schema.ChangeTriggers {
		drops = append(drops, "DROP TRIGGER IF EXISTS "+name)
	}
	if err := execAll(app, drops); err != nil {
		return err
	}
	return deleteCollections(app, schema.WebhookDeliveries, schema.Webhooks)
}
