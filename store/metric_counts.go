package store

import (
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Metric counters: each API client's revisions counted by state, band and
// reason, over all time and per month and day of the moment that counts for
// the state (created while pending, reviewedAt once decided, closedAt once
// superseded or expired). They are kept in the transactions that change a
// revision's state, so GET /acceptance-rate reads a few dozen rows instead
// of every revision: a window takes its whole months and days from the
// counters and only its partial days at the edges from the revisions'
// indexes (store/metrics.go).

// Counter spans; the "all" span has an empty start.
const (
	spanAll   = "all"
	spanMonth = "month"
	spanDay   = "day"
)

// metricKey is one counter.
type metricKey struct {
	client, span, start, status, band, reason string
}

// metricDeltas are changes to counters, added up before they are written.
type metricDeltas map[metricKey]int

// add counts n revisions of client entering (n > 0) or leaving (n < 0)
// status at the moment at, in every span. Only decided revisions count by
// band and reason.
func (d metricDeltas) add(client string, at time.Time, status, band, reason string, n int) {
	if status != enrichment.StatusAccepted && status != enrichment.StatusRejected {
		band, reason = "", ""
	}
	at = at.UTC()
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	month := time.Date(at.Year(), at.Month(), 1, 0, 0, 0, 0, time.UTC)
	for span, start := range map[string]string{spanAll: "", spanMonth: FormatTime(month), spanDay: FormatTime(day)} {
		d[metricKey{client, span, start, status, band, reason}] += n
	}
}

// move counts one revision leaving pending (submitted at created) for a
// final status at the moment at.
func (d metricDeltas) move(client string, created, at time.Time, status, band, reason string) {
	d.add(client, created, enrichment.StatusPending, "", "", -1)
	d.add(client, at, status, band, reason, 1)
}

// write adds the deltas to org's counters, in the caller's transaction.
func (s *Store) writeMetricDeltas(org enrichment.Org, d metricDeltas) error {
	if len(d) == 0 {
		return nil
	}
	q := s.db().NewQuery(`INSERT INTO ` + schema.MetricCountsTable + ` (organization, client, span, start, status, band, reason, n)
		VALUES ({:org}, {:client}, {:span}, {:start}, {:status}, {:band}, {:reason}, {:n})
		ON CONFLICT (organization, client, span, start, status, band, reason) DO UPDATE SET n = n + excluded.n`).Prepare()
	defer q.Close()
	for k, n := range d {
		if n == 0 {
			continue
		}
		_, err := q.Bind(dbx.Params{"org": string(org), "client": k.client, "span": k.span, "start": k.start,
			"status": k.status, "band": k.band, "reason": k.reason, "n": n}).Execute()
		if err != nil {
			return fmt.Errorf("count revisions of client %s: %w", k.client, err)
		}
	}
	return nil
}

// RecordDecision keeps the counters of a revision that a reviewer just
// decided, in the decision's transaction.
func (s *Store) RecordDecision(org enrichment.Org, client string, created types.DateTime, band, status, reason string, at time.Time) error {
	d := metricDeltas{}
	d.move(client, created.Time(), at, status, band, reason)
	return s.writeMetricDeltas(org, d)
}

// metricCountsSQL counts org's revisions into one span of counters as the
// store keeps them (the migration that made the counters counts alike).
func metricCountsSQL(span, start string) string {
	const at = `CASE [[status]] WHEN 'pending' THEN [[created]] WHEN 'accepted' THEN [[reviewedAt]] WHEN 'rejected' THEN [[reviewedAt]] ELSE [[closedAt]] END`
	decided := `[[status]] IN ('accepted', 'rejected')`
	if start != "''" {
		start = "strftime('" + start + "', " + at + ")"
	}
	return `SELECT [[organization]], [[apiClient]], '` + span + `', ` + start + `, [[status]],
		CASE WHEN ` + decided + ` THEN [[confidenceBand]] ELSE '' END, CASE WHEN ` + decided + ` THEN [[reason]] ELSE '' END, COUNT(*)
		FROM {{revisions}} WHERE [[organization]] = {:org} GROUP BY 1, 2, 3, 4, 5, 6, 7`
}

// metricSpans are the counter spans with the strftime format of their start.
var metricSpans = map[string]string{spanAll: "''", spanMonth: "%Y-%m-01 00:00:00.000Z", spanDay: "%Y-%m-%d 00:00:00.000Z"}

// RecountMetrics rebuilds org's counters from its revisions: after writes
// that went around the store (SQL by hand, a restore of part of a table).
func (s *Store) RecountMetrics(org enrichment.Org) error {
	return s.Transaction(func(tx *Store) error {
		if _, err := tx.db().Delete(schema.MetricCountsTable, dbx.HashExp{"organization": string(org)}).Execute(); err != nil {
			return fmt.Errorf("forget the counters of organization %s: %w", org, err)
		}
		for span, start := range metricSpans {
			_, err := tx.db().NewQuery(`INSERT INTO ` + schema.MetricCountsTable + ` ` + metricCountsSQL(span, start)).
				Bind(dbx.Params{"org": string(org)}).Execute()
			if err != nil {
				return fmt.Errorf("count the revisions of organization %s: %w", org, err)
			}
		}
		return nil
	})
}

// MetricCounter is one stored counter, for checks against a recount.
type MetricCounter struct {
	Client string `db:"client"`
	Span   string `db:"span"`
	Start  string `db:"start"`
	Status string `db:"status"`
	Band   string `db:"band"`
	Reason string `db:"reason"`
	N      int    `db:"n"`
}

// MetricCounters lists org's non-zero counters in key order.
func (s *Store) MetricCounters(org enrichment.Org) ([]MetricCounter, error) {
	var out []MetricCounter
	err := s.db().Select("client", "span", "start", "status", "band", "reason", "n").From(schema.MetricCountsTable).
		Where(dbx.HashExp{"organization": string(org)}).AndWhere(dbx.NewExp("n != 0")).
		OrderBy("client", "span", "start", "status", "band", "reason").All(&out)
	if err != nil {
		return nil, fmt.Errorf("list the counters of organization %s: %w", org, err)
	}
	return out, nil
}
