package store

import (
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// What operators' metrics (opsmetrics/) read at each scrape: counters the
// service keeps and the first entries of indexes, a fixed number of queries
// whose cost grows with the organizations, never with the catalog.

// OrgQueue is an organization's review queue as a scrape sees it.
type OrgQueue struct {
	Org     string
	Pending int64
	// Oldest is when the oldest pending revision was created; zero when
	// none is pending.
	Oldest time.Time
	// Audits is how many policy decisions wait for their audit.
	Audits int64
}

// Queues returns every organization's queue: the pending count from the
// all-time metric counters, the oldest pending revision from the first
// entry of the pending index, the audits waiting from the audit index.
func (s *Review) Queues() ([]OrgQueue, error) {
	var rows []struct {
		Org     string         `db:"org"`
		Pending int64          `db:"pending"`
		Oldest  types.DateTime `db:"oldest"`
		Audits  int64          `db:"audits"`
	}
	err := s.db().NewQuery(`SELECT o.[[id]] AS org,
		COALESCE((SELECT SUM(c.[[pending]]) FROM ` + schema.MetricCountsTable + ` c INDEXED BY ` + schema.IdxMetricCountsAll + `
			WHERE c.[[organization]] = o.[[id]] AND c.[[span]] = 'all'), 0) AS pending,
		COALESCE((SELECT r.[[created]] FROM {{revisions}} r INDEXED BY idx_revisions_org_status
			WHERE r.[[organization]] = o.[[id]] AND r.[[status]] = 'pending'
			ORDER BY CAST(r.[[id]] AS INTEGER) LIMIT 1), '') AS oldest,
		(SELECT COUNT(*) FROM {{revisions}} r INDEXED BY ` + schema.IdxRevisionsAudit + `
			WHERE r.[[organization]] = o.[[id]] AND r.[[audit]] = {:waiting} AND r.[[audit]] != '') AS audits
		FROM {{organizations}} o`).Bind(dbx.Params{"waiting": enrichment.AuditPending}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read the organizations' queues: %w", err)
	}
	out := make([]OrgQueue, len(rows))
	for i, r := range rows {
		out[i] = OrgQueue{Org: r.Org, Pending: r.Pending, Oldest: r.Oldest.Time(), Audits: r.Audits}
	}
	return out, nil
}

// DecisionCounts returns how many decisions each kind of decider
// (enrichment.DecidedByReviewer, DecidedByPolicy) made, as the decision
// trigger counted them.
func (s *Review) DecisionCounts() (map[string]int64, error) {
	var rows []struct {
		DecidedBy string `db:"decidedBy"`
		N         int64  `db:"n"`
	}
	if err := s.db().Select("decidedBy", "n").From(schema.DecisionCountsTable).All(&rows); err != nil {
		return nil, fmt.Errorf("read the decision counters: %w", err)
	}
	out := map[string]int64{enrichment.DecidedByReviewer: 0, enrichment.DecidedByPolicy: 0}
	for _, r := range rows {
		out[r.DecidedBy] = r.N
	}
	return out, nil
}

// DeliveriesDue counts the webhook deliveries due at now and returns when
// the longest-waiting one fell due (zero when none is), from the outbox's
// index of pending deliveries by nextAttemptAt.
func (s *Outbox) DeliveriesDue(now time.Time) (int64, time.Time, error) {
	var row struct {
		N      int64          `db:"n"`
		Oldest types.DateTime `db:"oldest"`
	}
	err := s.db().NewQuery(`SELECT COUNT(*) AS n, COALESCE(MIN([[nextAttemptAt]]), '') AS oldest
		FROM {{webhook_deliveries}} INDEXED BY ` + schema.IdxWebhookDeliveriesNext + `
		WHERE [[status]] = 'pending' AND [[nextAttemptAt]] <= {:now}`).
		Bind(dbx.Params{"now": FormatTime(now)}).One(&row)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("count the deliveries due: %w", err)
	}
	return row.N, row.Oldest.Time(), nil
}

// PoliciesByState counts the trust policies in each state (a few per
// organization, so a count of the table is no scan of the catalog; every state
// listed, zero when none is in it).
func (s *Trust) PoliciesByState() (map[string]int64, error) {
	var rows []struct {
		State string `db:"state"`
		N     int64  `db:"n"`
	}
	err := s.db().Select("state", "COUNT(*) AS n").From(schema.TrustPolicies).GroupBy("state").All(&rows)
	if err != nil {
		return nil, fmt.Errorf("count the trust policies by state: %w", err)
	}
	out := map[string]int64{}
	for _, st := range enrichment.PolicyStates {
		out[st] = 0
	}
	for _, r := range rows {
		out[r.State] += r.N
	}
	return out, nil
}
