package migrations

import (
	"fmt"
	"slices"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Rollback (docs/review.md): an accepted revision can be reverted, a final
// state. Revisions gain the status "reverted" and, set by the service,
// revertedAt, revertedBy, revertedFields (the fields whose value the
// rollback restored) and revertedAttributes (the attributes' names). The
// event "revision.reverted" may be named by a subscription. The metric
// counters gain "reverted" (a reverted revision also counts as rejected),
// and the reverted revisions get an index of their own for a window's
// edges: the indexes of decided revisions hold accepted and rejected ones
// only. Nothing is reverted before this release, so nothing is counted here.
func init() {
	m.Register(addRollback, dropRollback)
}

// rollbackFields are the fields this migration adds to revisions.
var rollbackFields = []string{"revertedAt", "revertedBy", "revertedFields", "revertedAttributes"}

func addRollback(app core.App) error {
	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	if err := addSelectValue(revisions, "status", "reverted"); err != nil {
		return err
	}
	revisions.Fields.Add(
		&core.DateField{Name: "revertedAt", Help: "When a rollback reverted this accepted revision (set by the service)."},
		&core.TextField{Name: "revertedBy", Max: 300, Help: "Who rolled it back (set by the service)."},
		&core.JSONField{Name: "revertedFields", MaxSize: 1 << 16,
			Help: "The applied fields whose value the rollback restored (set by the service)."},
		&core.JSONField{Name: "revertedAttributes", MaxSize: 1 << 20,
			Help: "Names of the applied attributes whose value the rollback restored (set by the service)."},
	)
	revisions.AddIndex(schema.IdxRevisionsReverted, false,
		"organization, apiClient, reviewedAt, confidenceBand, reason, decisionMask, model", "status = 'reverted'")
	if err := app.Save(revisions); err != nil {
		return fmt.Errorf("revisions: %w", err)
	}
	for _, c := range []struct{ collection, field string }{{schema.Webhooks, "events"}, {schema.WebhookDeliveries, "event"}} {
		col, err := app.FindCollectionByNameOrId(c.collection)
		if err != nil {
			return err
		}
		if err := addSelectValue(col, c.field, "revision.reverted"); err != nil {
			return err
		}
		if err := app.Save(col); err != nil {
			return fmt.Errorf("%s: %w", c.collection, err)
		}
	}
	return execAll(app, []string{
		`ALTER TABLE ` + schema.MetricCountsTable + ` ADD COLUMN reverted INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE ` + schema.ModelCountsTable + ` ADD COLUMN reverted INTEGER NOT NULL DEFAULT 0`,
	})
}

// addSelectValue adds value to the values of c's select field (and to how
// many it may hold, when it holds several).
func addSelectValue(c *core.Collection, field, value string) error {
	f, ok := c.Fields.GetByName(field).(*core.SelectField)
	if !ok {
		return fmt.Errorf("%s.%s is not a select field", c.Name, field)
	}
	if slices.Contains(f.Values, value) {
		return nil
	}
	if f.MaxSelect == len(f.Values) && f.MaxSelect > 1 {
		f.MaxSelect++
	}
	// note: an event goes before "ping", in the order they are documented
	at := len(f.Values)
	if i := slices.Index(f.Values, "ping"); i >= 0 {
		at = i
	}
	f.Values = slices.Insert(f.Values, at, value)
	return nil
}

// removeSelectValue undoes addSelectValue.
func removeSelectValue(c *core.Collection, field, value string) error {
	f, ok := c.Fields.GetByName(field).(*core.SelectField)
	if !ok {
		return fmt.Errorf("%s.%s is not a select field", c.Name, field)
	}
	if i := slices.Index(f.Values, value); i >= 0 {
		f.Values = slices.Delete(f.Values, i, i+1)
		if f.MaxSelect > 1 && f.MaxSelect > len(f.Values) {
			f.MaxSelect = len(f.Values)
		}
	}
	return nil
}

func dropRollback(app core.App) error {
	if err := execAll(app, []string{
		`ALTER TABLE ` + schema.MetricCountsTable + ` DROP COLUMN reverted`,
		`ALTER TABLE ` + schema.ModelCountsTable + ` DROP COLUMN reverted`,
	}); err != nil {
		return err
	}
	for _, c := range []struct{ collection, field string }{{schema.Webhooks, "events"}, {schema.WebhookDeliveries, "event"}} {
		col, err := app.FindCollectionByNameOrId(c.collection)
		if err != nil {
			return err
		}
		if err := removeSelectValue(col, c.field, "revision.reverted"); err != nil {
			return err
		}
		if err := app.Save(col); err != nil {
			return fmt.Errorf("%s: %w", c.collection, err)
		}
	}
	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	revisions.RemoveIndex(schema.IdxRevisionsReverted)
	for _, name := range rollbackFields {
		revisions.Fields.RemoveByName(name)
	}
	if err := removeSelectValue(revisions, "status", "reverted"); err != nil {
		return err
	}
	return app.Save(revisions)
}
