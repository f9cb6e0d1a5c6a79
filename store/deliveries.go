package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// The dispatcher's side of the webhook outbox: it works for every
// organization at once, so these functions are not scoped to one; each
// delivery carries its organization.

// FailingDeactivation is how long every delivery of a subscription may fail
// before the subscription is deactivated.
const FailingDeactivation = 3 * 24 * time.Hour

// DueDelivery is a delivery ready for an attempt, with what sending needs.
type DueDelivery struct {
	ID, Webhook  int64
	MessageID    string // the webhook-id of every attempt
	Org          enrichment.Org
	URL          string
	SealedSecret string
	Payload      []byte
	Attempts     int // made so far
}

// DueDeliveries returns, for each active subscription not in busy, its
// oldest delivery due at now: one per subscription, so a subscription with
// a long backlog does not hold the others back.
func (s *Outbox) DueDeliveries(now time.Time, busy map[int64]bool) ([]DueDelivery, error) {
	var hooks []struct {
		ID     string `db:"id"`
		Org    string `db:"organization"`
		URL    string `db:"url"`
		Secret string `db:"secret"`
	}
	if err := s.db().Select("id", "organization", "url", "secret").From(schema.Webhooks).
		Where(dbx.HashExp{"active": true}).OrderBy("CAST(id AS INTEGER)").All(&hooks); err != nil {
		return nil, fmt.Errorf("list active webhooks: %w", err)
	}
	q := s.db().NewQuery(`SELECT [[id]], [[messageId]], [[payload]], [[attempts]] FROM {{` + schema.WebhookDeliveries + `}}
		INDEXED BY ` + schema.IdxWebhookDeliveriesDue + `
		WHERE [[webhook]] = {:webhook} AND [[status]] = 'pending' AND [[nextAttemptAt]] <= {:now}
		ORDER BY [[nextAttemptAt]], CAST([[id]] AS INTEGER) LIMIT 1`).Prepare()
	defer q.Close()
	stamp := FormatTime(now)
	var out []DueDelivery
	for _, h := range hooks {
		id := sqlparts.StoredID(h.ID)
		if busy[id] {
			continue
		}
		var row struct {
			ID       string        `db:"id"`
			Message  string        `db:"messageId"`
			Payload  types.JSONRaw `db:"payload"`
			Attempts int           `db:"attempts"`
		}
		err := q.Bind(dbx.Params{"webhook": h.ID, "now": stamp}).One(&row)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("find the due delivery of webhook %d: %w", id, err)
		}
		out = append(out, DueDelivery{ID: sqlparts.StoredID(row.ID), MessageID: row.Message, Webhook: id, Org: enrichment.Org(h.Org), URL: h.URL,
			SealedSecret: h.Secret, Payload: row.Payload, Attempts: row.Attempts})
	}
	return out, nil
}

// NextDeliveryAt is when the next pending delivery is due; zero when none is.
func (s *Outbox) NextDeliveryAt() (time.Time, error) {
	var next types.DateTime
	err := s.db().NewQuery(`SELECT COALESCE(MIN([[nextAttemptAt]]), '') FROM {{` + schema.WebhookDeliveries + `}}
		INDEXED BY ` + schema.IdxWebhookDeliveriesNext + ` WHERE [[status]] = 'pending'`).Row(&next)
	if err != nil {
		return time.Time{}, fmt.Errorf("find the next delivery: %w", err)
	}
	return next.Time(), nil
}

// DeliveryOutcome is what one attempt of a delivery came to.
type DeliveryOutcome struct {
	Delivered  bool
	StatusCode int           // 0: no HTTP answer
	Error      string        // why it failed, for the log the vendor reads
	RetryIn    time.Duration // after a failure: when to try again; 0: never (failed)
}

// RecordAttempt writes an attempt's outcome, and the subscription's health:
// a success clears it; a failure marks since when deliveries fail and,
// past FailingDeactivation, deactivates the subscription, failing its
// pending deliveries.
func (s *Outbox) RecordAttempt(d DueDelivery, at time.Time, o DeliveryOutcome) error {
	return s.Transaction(func(tx *Store) error {
		stamp := FormatTime(at)
		values := dbx.Params{"attempts": d.Attempts + 1, "lastStatusCode": o.StatusCode, "lastError": truncate(o.Error, 1000),
			"updated": stamp}
		switch {
		case o.Delivered:
			values["status"], values["deliveredAt"], values["nextAttemptAt"] = enrichment.DeliveryDelivered, stamp, ""
		case o.RetryIn > 0:
			values["nextAttemptAt"] = FormatTime(at.Add(o.RetryIn))
		default:
			values["status"], values["nextAttemptAt"] = enrichment.DeliveryFailed, ""
		}
		// note: only while pending: a delivery failed by a deactivation
		// meanwhile stays failed
		res, err := tx.db().Update(schema.WebhookDeliveries, values,
			dbx.HashExp{"id": FormatID(d.ID), "status": enrichment.DeliveryPending}).Execute()
		if err != nil {
			return fmt.Errorf("record an attempt of delivery %d: %w", d.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		return tx.Outbox().recordHealth(d.Webhook, at, o.Delivered)
	})
}

// recordHealth keeps a subscription's failingSince, and deactivates it.
func (s *Outbox) recordHealth(webhook int64, at time.Time, delivered bool) error {
	where := dbx.HashExp{"id": FormatID(webhook)}
	if delivered {
		_, err := s.db().Update(schema.Webhooks, dbx.Params{"failingSince": ""}, where).Execute()
		return err
	}
	var since types.DateTime
	if err := s.db().Select("failingSince").From(schema.Webhooks).Where(where).Row(&since); err != nil {
		return fmt.Errorf("read the health of webhook %d: %w", webhook, err)
	}
	switch {
	case since.IsZero():
		_, err := s.db().Update(schema.Webhooks, dbx.Params{"failingSince": FormatTime(at)}, where).Execute()
		return err
	case at.Sub(since.Time()) < FailingDeactivation:
		return nil
	}
	if _, err := s.db().Update(schema.Webhooks, dbx.Params{"active": false, "updated": FormatTime(at)}, where).Execute(); err != nil {
		return fmt.Errorf("deactivate webhook %d: %w", webhook, err)
	}
	_, err := s.db().Update(schema.WebhookDeliveries, dbx.Params{
		"status": enrichment.DeliveryFailed, "nextAttemptAt": "", "updated": FormatTime(at),
		"lastError": "The subscription was deactivated: every delivery failed for 3 days.",
	}, dbx.HashExp{"webhook": FormatID(webhook), "status": enrichment.DeliveryPending}).Execute()
	if err != nil {
		return fmt.Errorf("fail the pending deliveries of webhook %d: %w", webhook, err)
	}
	return nil
}

// truncate keeps the first n bytes of s, on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
