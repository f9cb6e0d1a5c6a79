package migrations

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Each webhook delivery gets a message id, sent as its webhook-id header on
// every attempt: msg_ and at least 26 time-ordered random characters
// (store.NewMessageID), unique across instances and restores, where the
// delivery's number was only unique in one data folder. Deliveries made
// before that were never attempted get msg_ and 32 random hexadecimal
// characters; those already attempted keep the number their receivers saw
// as webhook-id, so that every retry of a delivery carries the same id.
func init() {
	m.Register(addMessageIDs, func(app core.App) error {
		c, err := app.FindCollectionByNameOrId(schema.WebhookDeliveries)
		if err != nil {
			return err
		}
		c.Fields.RemoveByName("messageId")
		return app.Save(c)
	})
}

func addMessageIDs(app core.App) error {
	c, err := app.FindCollectionByNameOrId(schema.WebhookDeliveries)
	if err != nil {
		return fmt.Errorf("find %s: %w", schema.WebhookDeliveries, err)
	}
	if c.Fields.GetByName("messageId") == nil {
		c.Fields.Add(&core.TextField{Name: "messageId", Max: 100, Pattern: `^(msg_[0-9A-Za-z]{26,}|[1-9][0-9]*)$`,
			AutogeneratePattern: `msg_[0-9A-HJKMNP-TV-Z]{26}`,
			Help:                "The webhook-id header of every attempt of this delivery."})
		if err := app.Save(c); err != nil {
			return fmt.Errorf("add the message id of webhook deliveries: %w", err)
		}
	}
	_, err = app.DB().NewQuery(`UPDATE {{` + schema.WebhookDeliveries + `}}
		SET [[messageId]] = CASE WHEN [[attempts]] > 0 THEN [[id]] ELSE 'msg_' || upper(hex(randomblob(16))) END
		WHERE [[messageId]] = '' OR [[messageId]] IS NULL`).Execute()
	if err != nil {
		return fmt.Errorf("give the existing webhook deliveries a message id: %w", err)
	}
	return nil
}
