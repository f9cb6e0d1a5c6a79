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
	Band   string `db:"band"`
	Status string `db:"status"`
	Reason string `db:"reason"`
	N      int    `db:"n"`
}

// AcceptanceMetrics counts the revisions that API client submitted for org
// within w: from the "all" counters when it is unbounded, else from the
// counters of its whole months, days and hours (store/metric_counts.go)
// and from the revisions' indexes for its partial hours at the edges. Its
// cost does not grow with the revisions: at most about a hundred bucket
// rows, and the index entries of two hours.
func (s *Store) AcceptanceMetrics(org enrichment.Org, client int64, w Window) (enrichment.AcceptanceMetrics, error) {
	m := enrichment.NewAcceptanceMetrics()
	if err := s.countWindow(org, client, w, &m); err != nil {
		return enrichment.AcceptanceMetrics{}, fmt.Errorf("acceptance metrics of client %d of organization %s: %w", client, org, err)
	}
	m.Finish()
	return m, nil
}

// Bounds of an open window side, far outside any revision's time.
var (
	beforeAll = time.Unix(0, 0).UTC()
	afterAll  = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// countWindow adds client's revisions within w to m.
func (s *Store) countWindow(org enrichment.Org, client int64, w Window, m *enrichment.AcceptanceMetrics) error {
	if w.Since.IsZero() && w.Until.IsZero() {
		return s.addCounters(org, client, []bucketRange{{span: spanAll}}, m)
	}
	// the whole hours inside (since, until): from the first hour that starts
	// after since to the last that ends by until
	first, last := beforeAll, afterAll
	if !w.Since.IsZero() {
		first = nextBucket(spanHour, bucketStart(spanHour, w.Since))
	}
	if !w.Until.IsZero() {
		last = bucketStart(spanHour, w.Until)
	}
	if !first.Before(last) { // no whole hour: at most two hours of index entries
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
	return s.addCounters(org, client, cover(first, last, spanMonth), m)
}

// bucketRange is the buckets of one span whose start is in [from, to).
type bucketRange struct {
	span     string
	from, to time.Time
}

// finer is the span below each bucketed span.
var finer = map[string]string{spanMonth: spanDay, spanDay: spanHour}

// cover splits [from, to), both on hour boundaries, into the fewest buckets:
// whole buckets of span where they fit and finer ones around them.
func cover(from, to time.Time, span string) []bucketRange {
	if !from.Before(to) {
		return nil
	}
	if span == spanHour {
		return []bucketRange{{spanHour, from, to}}
	}
	start := bucketStart(span, from)
	if start.Before(from) {
		start = nextBucket(span, start)
	}
	end := bucketStart(span, to)
	if !start.Before(end) {
		return cover(from, to, finer[span])
	}
	return append(append(cover(from, start, finer[span]), bucketRange{span, start, end}), cover(end, to, finer[span])...)
}

// addCounters adds client's counters of the bucket ranges to m, read in one
// statement: a UNION ALL of one range seek per span on the primary key (an
// OR of the ranges would make SQLite read every bucket of the client).
func (s *Store) addCounters(org enrichment.Org, client int64, ranges []bucketRange, m *enrichment.AcceptanceMetrics) error {
	params := dbx.Params{"org": string(org), "client": FormatID(client)}
	names := counterNames("")
	parts := make([]string, len(ranges))
	for i, r := range ranges {
		n := strconv.Itoa(i)
		params["span"+n] = r.span
		parts[i] = "SELECT " + strings.Join(names, ", ") + " FROM " + schema.MetricCountsTable +
			" WHERE [[organization]] = {:org} AND [[client]] = {:client} AND [[span]] = {:span" + n + "}"
		if r.span != spanAll {
			params["from"+n], params["to"+n] = FormatTime(r.from), FormatTime(r.to)
			parts[i] += " AND [[start]] >= {:from" + n + "} AND [[start]] < {:to" + n + "}"
		}
	}
	sums := make([]string, len(names))
	for i, n := range names {
		sums[i] = "COALESCE(SUM(" + n + "), 0)"
	}
	c := newCounts()
	err := s.db().NewQuery("SELECT " + strings.Join(sums, ", ") + " FROM (" + strings.Join(parts, " UNION ALL ") + ")").
		Bind(params).Row(c.targets()...)
	if err != nil {
		return fmt.Errorf("read counters: %w", err)
	}
	c.addTo(m)
	return nil
}

// addIndexed counts client's revisions within w from the indexes, into m.
func (s *Store) addIndexed(org enrichment.Org, client int64, w Window, m *enrichment.AcceptanceMetrics) error {
	groups, err := s.metricsCounts(org, client, w)
	if err != nil {
		return err
	}
	c := newCounts()
	for _, g := range groups {
		c.count(g.Status, g.Band, g.Reason, g.N)
	}
	masks, err := s.decisionMasks(org, client, w)
	if err != nil {
		return err
	}
	for _, g := range masks {
		c.countFields(g.Mask, g.N)
	}
	c.addTo(m)
	return nil
}

// decisionMasks counts client's decided revisions within w by decision
// mask, from the index that holds them (migrations/1795274710_field_metrics.go):
// the per-field counts of a window's edges.
func (s *Store) decisionMasks(org enrichment.Org, client int64, w Window) ([]struct {
	Mask enrichment.FieldMask `db:"mask"`
	N    int                  `db:"n"`
}, error) {
	params := dbx.Params{"org": string(org), "client": FormatID(client)}
	where := "[[organization]] = {:org} AND [[apiClient]] = {:client} AND [[status]] IN ('accepted', 'rejected')"
	if !w.Since.IsZero() {
		params["since"] = FormatTime(w.Since)
		where += " AND [[reviewedAt]] > {:since}"
	}
	if !w.Until.IsZero() {
		params["until"] = FormatTime(w.Until)
		where += " AND [[reviewedAt]] < {:until}"
	}
	var out []struct {
		Mask enrichment.FieldMask `db:"mask"`
		N    int                  `db:"n"`
	}
	err := s.db().NewQuery("SELECT [[decisionMask]] AS [[mask]], COUNT(*) AS [[n]] FROM {{revisions}} INDEXED BY " +
		schema.IdxRevisionsDecidedFields + " WHERE " + where + " GROUP BY [[decisionMask]]").Bind(params).All(&out)
	if err != nil {
		return nil, fmt.Errorf("count decisions by field: %w", err)
	}
	return out, nil
}

// Overview is the acceptance metrics of every API client of org that
// submitted anything, in id order, and of all of them together, without a
// window: the reviewers' overview, from the "all" counters.
func (s *Store) Overview(org enrichment.Org) (enrichment.Overview, error) {
	rows, err := s.db().Select(append([]string{"client"}, counterNames("")...)...).From(schema.MetricCountsTable).
		Where(dbx.HashExp{"organization": string(org), "span": spanAll}).Rows()
	if err != nil {
		return enrichment.Overview{}, fmt.Errorf("overview of organization %s: %w", org, err)
	}
	defer rows.Close()
	byClient := map[int64]*enrichment.AcceptanceMetrics{}
	for rows.Next() {
		var client string
		c, err := scanCounts(rows, &client)
		if err != nil {
			return enrichment.Overview{}, fmt.Errorf("overview of organization %s: %w", org, err)
		}
		m := enrichment.NewAcceptanceMetrics()
		c.addTo(&m)
		byClient[storedID(client)] = &m
	}
	if err := rows.Err(); err != nil {
		return enrichment.Overview{}, fmt.Errorf("overview of organization %s: %w", org, err)
	}
	clients, err := s.Clients(org)
	if err != nil {
		return enrichment.Overview{}, err
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
			Organization: storedID(string(org)), Metrics: *m})
	}
	out.All.Finish()
	return out, nil
}

// metricsCounts counts the revisions of org's client within w from the
// revisions themselves, by status, band and reason: the edges of a window
// (see countWindow). The database does the counting, in one statement of
// three parts, each answered from a covering index (see migrations/1795272800_review_loop.go), so no revision record is
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
