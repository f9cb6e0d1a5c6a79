package store

import (
	"database/sql"
	"encoding/json/v2"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Webhook subscriptions are each API client's own: every function here
// takes the organization and the client, and another client's id is
// simply not found.

// ErrTooManyWebhooks refuses a subscription beyond the client's limit.
var ErrTooManyWebhooks = fmt.Errorf("at most %d webhook subscriptions per API client", enrichment.MaxWebhooksPerClient)

type webhookRow struct {
	ID      string         `db:"id"`
	URL     string         `db:"url"`
	Events  types.JSONRaw  `db:"events"`
	Active  bool           `db:"active"`
	Created types.DateTime `db:"created"`
}

var webhookColumns = []string{"id", "url", "events", "active", "created"}

func (r webhookRow) webhook() enrichment.Webhook {
	return enrichment.Webhook{ID: sqlparts.StoredID(r.ID), URL: r.URL, Events: decodeStrings(r.Events), Active: r.Active,
		CreatedAt: apiTime(r.Created)}
}

// CreateWebhook stores an active subscription of client with its sealed
// secret; ErrTooManyWebhooks when the client has its maximum already.
func (s *Outbox) CreateWebhook(org enrichment.Org, client int64, url string, events []string, sealedSecret string) (enrichment.Webhook, error) {
	var out enrichment.Webhook
	err := s.Transaction(func(tx *Store) error {
		var n int
		err := tx.db().Select("COUNT(*)").From(schema.Webhooks).
			Where(dbx.HashExp{"organization": string(org), "apiClient": FormatID(client)}).Row(&n)
		if err != nil {
			return fmt.Errorf("count webhooks of client %d: %w", client, err)
		}
		if n >= enrichment.MaxWebhooksPerClient {
			return ErrTooManyWebhooks
		}
		id, err := NextIDs(tx.db(), schema.Webhooks, 1)
		if err != nil {
			return err
		}
		now := FormatTime(clock.Now(s.app))
		eventsJSON, err := json.Marshal(events)
		if err != nil {
			return err
		}
		_, err = tx.db().Insert(schema.Webhooks, dbx.Params{
			"id": FormatID(id), "organization": string(org), "apiClient": FormatID(client), "url": url,
			"events": string(eventsJSON), "active": true, "secret": sealedSecret, "failingSince": "",
			"created": now, "updated": now,
		}).Execute()
		if err != nil {
			return fmt.Errorf("insert webhook of client %d: %w", client, err)
		}
		out, err = tx.Outbox().Webhook(org, client, id)
		return err
	})
	return out, err
}

// Webhooks lists client's subscriptions in id order.
func (s *Outbox) Webhooks(org enrichment.Org, client int64) ([]enrichment.Webhook, error) {
	var rows []webhookRow
	err := s.db().Select(webhookColumns...).From(schema.Webhooks).
		Where(dbx.HashExp{"organization": string(org), "apiClient": FormatID(client)}).
		OrderBy("CAST(id AS INTEGER)").All(&rows)
	if err != nil {
		return nil, fmt.Errorf("list webhooks of client %d: %w", client, err)
	}
	out := make([]enrichment.Webhook, len(rows))
	for i, r := range rows {
		out[i] = r.webhook()
	}
	return out, nil
}

// Webhook is one of client's subscriptions; enrichment.ErrNotFound for any other id.
func (s *Outbox) Webhook(org enrichment.Org, client, id int64) (enrichment.Webhook, error) {
	var row webhookRow
	err := s.db().Select(webhookColumns...).From(schema.Webhooks).
		Where(dbx.HashExp{"id": FormatID(id), "organization": string(org), "apiClient": FormatID(client)}).One(&row)
	if errors.Is(err, sql.ErrNoRows) {
		return enrichment.Webhook{}, enrichment.NotFound("webhook")
	}
	if err != nil {
		return enrichment.Webhook{}, fmt.Errorf("find webhook %d: %w", id, err)
	}
	return row.webhook(), nil
}

// DeleteWebhook deletes one of client's subscriptions with its deliveries;
// enrichment.ErrNotFound for any other id.
func (s *Outbox) DeleteWebhook(org enrichment.Org, client, id int64) error {
	return s.Transaction(func(tx *Store) error {
		if _, err := tx.Outbox().Webhook(org, client, id); err != nil {
			return err
		}
		where := dbx.HashExp{"organization": string(org), "webhook": FormatID(id)}
		if _, err := tx.db().Delete(schema.WebhookDeliveries, where).Execute(); err != nil {
			return fmt.Errorf("delete deliveries of webhook %d: %w", id, err)
		}
		_, err := tx.db().Delete(schema.Webhooks, dbx.HashExp{"id": FormatID(id), "organization": string(org)}).Execute()
		if err != nil {
			return fmt.Errorf("delete webhook %d: %w", id, err)
		}
		return nil
	})
}

type deliveryRow struct {
	ID          string         `db:"id"`
	Event       string         `db:"event"`
	Revision    string         `db:"revision"`
	Status      string         `db:"status"`
	Attempts    int            `db:"attempts"`
	LastStatus  int            `db:"lastStatusCode"`
	LastError   string         `db:"lastError"`
	NextAttempt types.DateTime `db:"nextAttemptAt"`
	Created     types.DateTime `db:"created"`
	Delivered   types.DateTime `db:"deliveredAt"`
	MessageID   string         `db:"messageId"`
}

var deliveryColumns = []string{"id", "event", "revision", "status", "attempts", "lastStatusCode", "lastError",
	"nextAttemptAt", "created", "deliveredAt", "messageId"}

func (r deliveryRow) delivery() enrichment.Delivery {
	d := enrichment.Delivery{ID: sqlparts.StoredID(r.ID), MessageID: r.MessageID, Event: r.Event, Status: r.Status, Attempts: r.Attempts,
		LastError: nullIfEmpty(r.LastError), CreatedAt: apiTime(r.Created), DeliveredAt: optionalTime(r.Delivered)}
	if r.Revision != "" {
		id := sqlparts.StoredID(r.Revision)
		d.RevisionID = &id
	}
	if r.LastStatus != 0 {
		code := r.LastStatus
		d.LastStatusCode = &code
	}
	if r.Status == enrichment.DeliveryPending {
		d.NextAttemptAt = optionalTime(r.NextAttempt)
	}
	return d
}

// WebhookDeliveries returns one page of a subscription's deliveries, the
// newest first; enrichment.ErrNotFound when it is not one of client's.
func (s *Outbox) WebhookDeliveries(org enrichment.Org, client, webhook int64, page, size int) (enrichment.Page[enrichment.Delivery], error) {
	if _, err := s.Webhook(org, client, webhook); err != nil {
		return enrichment.Page[enrichment.Delivery]{}, err
	}
	where := dbx.HashExp{"webhook": FormatID(webhook), "organization": string(org)}
	var total int
	if err := s.db().Select("COUNT(*)").From(schema.WebhookDeliveries).Where(where).Row(&total); err != nil {
		return enrichment.Page[enrichment.Delivery]{}, fmt.Errorf("count deliveries of webhook %d: %w", webhook, err)
	}
	var rows []deliveryRow
	if page < (total+size-1)/size { // note: never multiply a huge page number
		err := s.db().Select(deliveryColumns...).From(schema.WebhookDeliveries).Where(where).
			OrderBy("CAST(id AS INTEGER) DESC").Limit(int64(size)).Offset(int64(page) * int64(size)).All(&rows)
		if err != nil {
			return enrichment.Page[enrichment.Delivery]{}, fmt.Errorf("list deliveries of webhook %d: %w", webhook, err)
		}
	}
	items := make([]enrichment.Delivery, len(rows))
	for i, r := range rows {
		items[i] = r.delivery()
	}
	return enrichment.NewPage(items, page, size, total), nil
}

// QueuePing queues a ping to one of client's subscriptions, whatever events
// it names; enrichment.ErrNotFound when it is not one of client's.
func (s *Outbox) QueuePing(org enrichment.Org, client, webhook int64) (enrichment.Delivery, error) {
	var out enrichment.Delivery
	err := s.Transaction(func(tx *Store) error {
		if _, err := tx.Outbox().Webhook(org, client, webhook); err != nil {
			return err
		}
		now := clock.Now(s.app)
		ids, err := tx.Outbox().insertDeliveries(org, []queuedDelivery{{webhook: webhook, event: enrichment.EventPing,
			payload: enrichment.WebhookPayload{Type: enrichment.EventPing, Timestamp: now.UTC().Format(apiTimeLayout), Data: struct{}{}}}}, now)
		if err != nil {
			return err
		}
		var row deliveryRow
		if err := tx.db().Select(deliveryColumns...).From(schema.WebhookDeliveries).
			Where(dbx.HashExp{"id": FormatID(ids[0])}).One(&row); err != nil {
			return fmt.Errorf("read delivery %d: %w", ids[0], err)
		}
		out = row.delivery()
		return nil
	})
	return out, err
}

// queuedDelivery is a delivery about to be written.
type queuedDelivery struct {
	webhook  int64
	event    string
	revision int64 // 0 for ping
	payload  enrichment.WebhookPayload
}

// insertDeliveries writes pending deliveries, due at once; it returns their ids.
func (s *Outbox) insertDeliveries(org enrichment.Org, ds []queuedDelivery, now time.Time) ([]int64, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	first, err := NextIDs(s.db(), schema.WebhookDeliveries, len(ds))
	if err != nil {
		return nil, err
	}
	stamp := FormatTime(now)
	q := s.db().NewQuery(`INSERT INTO {{` + schema.WebhookDeliveries + `}} ([[id]], [[organization]], [[webhook]], [[event]],
		[[revision]], [[payload]], [[status]], [[attempts]], [[lastStatusCode]], [[lastError]], [[nextAttemptAt]],
		[[deliveredAt]], [[created]], [[updated]], [[messageId]])
		VALUES ({:id}, {:org}, {:webhook}, {:event}, {:revision}, {:payload}, 'pending', 0, 0, '', {:now}, '', {:now}, {:now},
		{:message})`).Prepare()
	defer q.Close()
	ids := make([]int64, len(ds))
	for i, d := range ds {
		payload, err := json.Marshal(d.payload)
		if err != nil {
			return nil, fmt.Errorf("encode a %s payload: %w", d.event, err)
		}
		revision := ""
		if d.revision != 0 {
			revision = FormatID(d.revision)
		}
		ids[i] = first + int64(i)
		_, err = q.Bind(dbx.Params{"id": FormatID(ids[i]), "org": string(org), "webhook": FormatID(d.webhook),
			"event": d.event, "revision": revision, "payload": string(payload), "now": stamp,
			"message": NewMessageID(now)}).Execute()
		if err != nil {
			return nil, fmt.Errorf("queue a %s delivery to webhook %d: %w", d.event, d.webhook, err)
		}
	}
	s.committed(Committed{Outbox: true}) // the dispatcher is woken once they commit
	return ids, nil
}

// queueRevisionEvents queues, in the caller's transaction, one delivery of
// event for each active subscription of each revision's client that names
// it; the payload is the revision as GET /revisions shows it now. It costs
// one query when no subscription listens.
func (s *Outbox) queueRevisionEvents(org enrichment.Org, event string, revisions []int64) error {
	if len(revisions) == 0 {
		return nil
	}
	var subs []struct {
		ID     string        `db:"id"`
		Client string        `db:"apiClient"`
		Events types.JSONRaw `db:"events"`
	}
	err := s.db().Select("id", "apiClient", "events").From(schema.Webhooks).
		Where(dbx.HashExp{"organization": string(org), "active": true}).All(&subs)
	if err != nil {
		return fmt.Errorf("find webhooks of organization %s: %w", org, err)
	}
	listening := map[string][]int64{} // client → subscriptions naming event
	for _, sub := range subs {
		if slices.Contains(decodeStrings(sub.Events), event) {
			listening[sub.Client] = append(listening[sub.Client], sqlparts.StoredID(sub.ID))
		}
	}
	if len(listening) == 0 {
		return nil
	}
	var rows []struct {
		revisionRow
		Client string `db:"apiClient"`
	}
	err = s.db().Select(append(slices.Clone(revisionColumns), "apiClient")...).From(schema.Revisions).
		Where(dbx.HashExp{"organization": string(org)}).AndWhere(sqlparts.In("id", sqlparts.FormatIDs(revisions))).
		OrderBy("CAST(id AS INTEGER)").All(&rows)
	if err != nil {
		return fmt.Errorf("read revisions for %s events: %w", event, err)
	}
	now := clock.Now(s.app)
	var ds []queuedDelivery
	for _, r := range rows {
		for _, webhook := range listening[r.Client] {
			ds = append(ds, queuedDelivery{webhook: webhook, event: event, revision: sqlparts.StoredID(r.ID),
				payload: enrichment.WebhookPayload{Type: event, Timestamp: now.UTC().Format(apiTimeLayout), Data: r.item()}})
		}
	}
	_, err = s.insertDeliveries(org, ds, now)
	return err
}
