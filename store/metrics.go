package store

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// Window bounds the metrics strictly on both sides; a zero time is no bound.
// A decided revision counts by its reviewedAt, a pending one by its created,
// a superseded or expired one by its closedAt.
type Window struct {
	Since, Until time.Time
}

// metricsCount is one group of the metrics query.
type metricsCount struct {
	Client string `db:"client"`
	Band   string `db:"band"`
	Status string `db:"status"`
	Reason string `db:"reason"`
	N      int    `db:"n"`
}

// add folds the count into m.
func (c metricsCount) add(m *enrichment.AcceptanceMetrics) {
	m.Count(c.Status, c.Band, c.N)
	if c.Reason != "" {
		m.CountReason(c.Reason, c.N)
	}
}

// AcceptanceMetrics counts the revisions that API client submitted for org
// within w: the whole window from the "all" counters when it is unbounded,
// else its whole months and days from the counters (store/metric_counts.go)
// and its partial days at the edges from the revisions' indexes. Its cost
// does not grow with the revisions: at most a few dozen counter rows per
// day and month, and at most two days of index entries.
func (s *Store) AcceptanceMetrics(org enrichment.Org, client int64, w Window) (enrichment.AcceptanceMetrics, error) {
	m := enrichment.NewAcceptanceMetrics()
	if err := s.countWindow(org, client, w, &m); err != nil {
		return enrichment.AcceptanceMetrics{}, fmt.Errorf("acceptance metrics of client %d of organization %s: %w", client, org, err)
	}
	m.Finish()
	return m, nil
}

// countWindow adds client's revisions within w to m.
func (s *Store) countWindow(org enrichment.Org, client int64, w Window, m *enrichment.AcceptanceMetrics) error {
	who := FormatID(client)
	if w.Since.IsZero() && w.Until.IsZero() {
		return s.addCounters(org, who, spanAll, "", "", m)
	}
	// the whole days inside (since, until): from the first day that starts
	// after since to the last that ends by until
	first, last := time.Unix(0, 0).UTC(), time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
	if !w.Since.IsZero() {
		first = dayOf(w.Since).AddDate(0, 0, 1)
	}
	if !w.Until.IsZero() {
		last = dayOf(w.Until)
	}
	if !first.Before(last) { // no whole day: at most two days of index entries
		return s.addIndexed(org, client, w, m)
	}
	if !w.Since.IsZero() {
		if err := s.addIndexed(org, client, Window{Since: w.Since, Until: first}, m); err != nil {
			return err
		}
	}
	if !w.Until.IsZero() {
		// note: since is strict, and times have millisecond precision
		if err := s.addIndexed(org, client, Window{Since: last.Add(-time.Millisecond), Until: w.Until}, m); err != nil {
			return err
		}
	}
	// whole months where they fit, days around them
	firstMonth, lastMonth := monthOf(first), monthOf(last)
	if !firstMonth.Equal(first) {
		firstMonth = firstMonth.AddDate(0, 1, 0)
	}
	if !firstMonth.Before(lastMonth) {
		return s.addCounters(org, who, spanDay, FormatTime(first), FormatTime(last), m)
	}
	if err := s.addCounters(org, who, spanDay, FormatTime(first), FormatTime(firstMonth), m); err != nil {
		return err
	}
	if err := s.addCounters(org, who, spanMonth, FormatTime(firstMonth), FormatTime(lastMonth), m); err != nil {
		return err
	}
	return s.addCounters(org, who, spanDay, FormatTime(lastMonth), FormatTime(last), m)
}

func dayOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func monthOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// addCounters adds client's counters of span whose start is in [from, to)
// (both "" for the all span) to m.
func (s *Store) addCounters(org enrichment.Org, client, span, from, to string, m *enrichment.AcceptanceMetrics) error {
	q := s.db().Select("status", "band", "reason", "SUM(n) AS n").From(schema.MetricCountsTable).
		Where(dbx.HashExp{"organization": string(org), "client": client, "span": span}).
		GroupBy("status", "band", "reason")
	if span != spanAll {
		q.AndWhere(dbx.NewExp("start >= {:from} AND start < {:to}", dbx.Params{"from": from, "to": to}))
	}
	var counts []metricsCount
	if err := q.All(&counts); err != nil {
		return fmt.Errorf("read counters: %w", err)
	}
	for _, c := range counts {
		c.add(m)
	}
	return nil
}

// addIndexed counts client's revisions within w from the indexes, into m.
func (s *Store) addIndexed(org enrichment.Org, client int64, w Window, m *enrichment.AcceptanceMetrics) error {
	counts, err := s.metricsCounts(org, client, w)
	if err != nil {
		return err
	}
	for _, c := range counts {
		c.add(m)
	}
	return nil
}

// Overview is the acceptance metrics of every API client of org that
// submitted anything, in id order, and of all of them together, without a
// window: the reviewers' overview, from the "all" counters.
func (s *Store) Overview(org enrichment.Org) (enrichment.Overview, error) {
	var counts []metricsCount
	err := s.db().Select("client", "status", "band", "reason", "n").From(schema.MetricCountsTable).
		Where(dbx.HashExp{"organization": string(org), "span": spanAll}).All(&counts)
	if err != nil {
		return enrichment.Overview{}, fmt.Errorf("overview of organization %s: %w", org, err)
	}
	clients, err := s.Clients(org)
	if err != nil {
		return enrichment.Overview{}, err
	}
	byClient := map[int64]*enrichment.AcceptanceMetrics{}
	for _, c := range counts {
		id := ParseID(c.Client)
		m := byClient[id]
		if m == nil {
			fresh := enrichment.NewAcceptanceMetrics()
			m, byClient[id] = &fresh, &fresh
		}
		c.add(m)
	}
	out := enrichment.Overview{Clients: []enrichment.ClientMetrics{}, All: enrichment.NewAcceptanceMetrics()}
	for _, c := range clients {
		m := byClient[c.ID]
		if m == nil {
			continue
		}
		m.Finish()
		if m.TotalSubmitted == 0 {
			continue
		}
		out.All.Add(*m)
		out.Clients = append(out.Clients, enrichment.ClientMetrics{ID: c.ID, Name: c.Name, Active: c.Active,
			Organization: ParseID(string(org)), Metrics: *m})
	}
	out.All.Finish()
	return out, nil
}

// metricsCounts counts the revisions of org's client within w from the
// revisions themselves, by status, band and reason: the edges of a window
// (see countWindow). The database does the counting, in one statement of three parts, each answered from a covering
// index (see migrations/1795272800_review_loop.go), so no revision record is
// read and the cost grows with the index entries in the window:
//   - decided: grouped by status, band and reason in the index's own order
//     (no sort); listing every band and reason value, "" included, turns the
//     window into one range seek on reviewedAt per group;
//   - pending: a plain count, by created;
//   - superseded and expired: a count per status, by closedAt.
func (s *Store) metricsCounts(org enrichment.Org, client int64, w Window) ([]metricsCount, error) {
	params := dbx.Params{"org": string(org), "pending": enrichment.StatusPending}
	// note: confidenceBand and reason are select fields, so these are all
	// their values
	in := func(prefix string, values []string) string {
		names := make([]string, len(values))
		for i, v := range values {
			names[i] = "{:" + prefix + strconv.Itoa(i) + "}"
			params[prefix+strconv.Itoa(i)] = v
		}
		return "(" + strings.Join(names, ", ") + ")"
	}
	// note: the statuses are literals, which lets SQLite use the partial
	// indexes of decided and of closed revisions
	decided := []string{"[[status]] IN ('accepted', 'rejected')",
		"[[confidenceBand]] IN " + in("band", append([]string{""}, enrichment.ConfidenceBands...)),
		"[[reason]] IN " + in("reason", append([]string{""}, enrichment.Reasons...))}
	pending := []string{"[[status]] = {:pending}"}
	closed := []string{"[[status]] IN ('superseded', 'expired')"}
	if !w.Since.IsZero() {
		params["since"] = FormatTime(w.Since)
		decided = append(decided, "[[reviewedAt]] > {:since}")
		pending = append(pending, "[[created]] > {:since}")
		closed = append(closed, "[[closedAt]] > {:since}")
	}
	if !w.Until.IsZero() {
		params["until"] = FormatTime(w.Until)
		decided = append(decided, "[[reviewedAt]] < {:until}")
		pending = append(pending, "[[created]] < {:until}")
		closed = append(closed, "[[closedAt]] < {:until}")
	}
	params["client"] = FormatID(client)
	tenant := " FROM {{revisions}} WHERE [[organization]] = {:org} AND [[apiClient]] = {:client} AND "
	sql := "SELECT [[status]], [[confidenceBand]] AS [[band]], [[reason]], COUNT(*) AS [[n]]" +
		tenant + strings.Join(decided, " AND ") + " GROUP BY [[status]], [[confidenceBand]], [[reason]]" +
		" UNION ALL SELECT {:pending}, '', '', COUNT(*)" + tenant + strings.Join(pending, " AND ") +
		" UNION ALL SELECT [[status]], '', '', COUNT(*)" + tenant + strings.Join(closed, " AND ") + " GROUP BY [[status]]"
	var counts []metricsCount
	if err := s.db().NewQuery(sql).Bind(params).All(&counts); err != nil {
		return nil, err
	}
	return counts, nil
}
