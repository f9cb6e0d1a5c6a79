package store

import (
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// Window bounds the metrics strictly on both sides; a zero time is no bound.
// A decided revision counts by its reviewedAt, a pending one by its created,
// a superseded or expired one by its closedAt.
type Window struct {
	Since, Until time.Time
}

// AcceptanceMetrics counts the revisions that API client submitted for org
// within w: from the "all" counters when it is unbounded, else from the
// counters of its whole months, days and hours (store/metric_counts.go)
// and from the revisions' indexes for its partial hours at the edges
// (store/metrics_window.go). Its cost does not grow with the revisions: at
// most about a hundred bucket rows per model version, and the index
// entries of two hours, read by at most three statements prepared once.
//
// With a filter, every figure counts only the proposals of that model (the
// model counters, and the same revisions at the edges). byModel comes from
// the model counters and the decided revisions at the edges.
func (s *Metrics) AcceptanceMetrics(org enrichment.Org, client int64, w Window, f ModelFilter) (enrichment.AcceptanceMetrics, error) {
	m := enrichment.NewAcceptanceMetrics()
	byModel, err := s.countWindow(org, client, w, f, &m)
	if err != nil {
		return enrichment.AcceptanceMetrics{}, fmt.Errorf("acceptance metrics of client %d of organization %s: %w", client, org, err)
	}
	m.ByModel = modelMetrics(byModel)
	m.Finish()
	return m, nil
}

// Bounds of an open window side, far outside any revision's time.
var (
	beforeAll = time.Unix(0, 0).UTC()
	afterAll  = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// windowPlan splits w into the bucket ranges read from the counters and
// the windows at its edges read from the revisions' indexes.
func windowPlan(w Window) ([]bucketRange, []Window) {
	if w.Since.IsZero() && w.Until.IsZero() {
		return []bucketRange{{span: spanAll}}, nil
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
		return nil, []Window{w}
	}
	var edges []Window
	if !w.Since.IsZero() {
		edges = append(edges, Window{Since: w.Since, Until: first})
	}
	if !w.Until.IsZero() {
		// note: since is strict, and times have millisecond precision
		edges = append(edges, Window{Since: last.Add(-time.Millisecond), Until: w.Until})
	}
	return cover(first, last, spanMonth), edges
}

// countWindow adds client's revisions within w (of the filter's model) to m
// and returns its decided ones by model version.
func (s *Metrics) countWindow(org enrichment.Org, client int64, w Window, f ModelFilter, m *enrichment.AcceptanceMetrics) ([]modelCount, error) {
	ranges, edges := windowPlan(w)
	var byModel []modelCount
	if len(edges) > 0 {
		found, err := s.addEdges(org, client, edges, f, m)
		if err != nil {
			return nil, fmt.Errorf("count the window's edges: %w", err)
		}
		byModel = found
	}
	if len(ranges) == 0 {
		return byModel, nil
	}
	found, err := s.addCounters(org, client, ranges, f, m)
	if err != nil {
		return nil, fmt.Errorf("read counters: %w", err)
	}
	return append(byModel, found...), nil
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

// Overview is the acceptance metrics of every API client of org that
// submitted anything, in id order, and of all of them together, without a
// window: the reviewers' overview, from the "all" counters.
func (s *Metrics) Overview(org enrichment.Org) (enrichment.Overview, error) {
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
		byClient[sqlparts.StoredID(client)] = &m
	}
	if err := rows.Err(); err != nil {
		return enrichment.Overview{}, fmt.Errorf("overview of organization %s: %w", org, err)
	}
	clients, err := s.Accounts().Clients(org)
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
			Organization: sqlparts.StoredID(string(org)), Metrics: *m})
	}
	out.All.Finish()
	return out, nil
}
