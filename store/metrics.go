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

// metricsCount is one group of the metrics query: of the counts (Part
// "count") or of the decided revisions by model ("model").
type metricsCount struct {
	Part    string `db:"part"`
	Band    string `db:"band"`
	Status  string `db:"status"`
	Reason  string `db:"reason"`
	N       int    `db:"n"`
	Model   string `db:"mname"`
	Version string `db:"mversion"`
}

// AcceptanceMetrics counts the revisions that API client submitted for org
// within w: from the "all" counters when it is unbounded, else from the
// counters of its whole months, days and hours (store/metric_counts.go)
// and from the revisions' indexes for its partial hours at the edges. Its
// cost does not grow with the revisions: at most about a hundred bucket
// rows, and the index entries of two hours.
//
// With a filter, every figure counts only the proposals of that model (the
// model counters, and the same revisions at the edges). byModel is read in
// the same statements as the rest: the model counters beside the client's,
// and the decided revisions with a model beside the other edges.
func (s *Store) AcceptanceMetrics(org enrichment.Org, client int64, w Window, f ModelFilter) (enrichment.AcceptanceMetrics, error) {
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
func (s *Store) countWindow(org enrichment.Org, client int64, w Window, f ModelFilter, m *enrichment.AcceptanceMetrics) ([]modelCount, error) {
	ranges, edges := windowPlan(w)
	var byModel []modelCount
	for _, e := range edges {
		found, err := s.addIndexed(org, client, e, f, m)
		if err != nil {
			return nil, err
		}
		byModel = append(byModel, found...)
	}
	if len(ranges) == 0 {
		return byModel, nil
	}
	found, err := s.addCounters(org, client, ranges, f, m)
	return append(byModel, found...), err
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

// addCounters adds client's counters of the bucket ranges to m and returns
// the model counters' decided revisions by model version, read in one
// statement: a UNION ALL of one range seek per span on the primary key of
// each table (an OR of the ranges would make SQLite read every bucket of
// the client), grouped by model version ("" for the client's counters).
// With a filter only the model counters are read, and they make m too.
func (s *Store) addCounters(org enrichment.Org, client int64, ranges []bucketRange, f ModelFilter, m *enrichment.AcceptanceMetrics) ([]modelCount, error) {
	params := dbx.Params{"org": string(org), "client": FormatID(client)}
	names := strings.Join(counterNames(""), ", ")
	var parts []string
	if !f.active() {
		for i, r := range ranges {
			parts = append(parts, "SELECT '' AS [[model]], '' AS [[version]], "+names+" FROM "+schema.MetricCountsTable+rangeSQL(i, r, params))
		}
	}
	filter := f.counterSQL(params)
	for i, r := range ranges {
		parts = append(parts, "SELECT [[model]], [[version]], "+names+" FROM "+schema.ModelCountsTable+rangeSQL(i, r, params)+filter)
	}
	sums := make([]string, len(counterColumns))
	for i, c := range counterColumns {
		sums[i] = "SUM(" + c.name + ")"
	}
	rows, err := s.db().NewQuery("SELECT [[model]], [[version]], " + strings.Join(sums, ", ") + " FROM (" +
		strings.Join(parts, " UNION ALL ") + ") GROUP BY [[model]], [[version]]").Bind(params).Rows()
	if err != nil {
		return nil, fmt.Errorf("read counters: %w", err)
	}
	defer rows.Close()
	var byModel []modelCount
	for rows.Next() {
		var name, version string
		c, err := scanCounts(rows, &name, &version)
		if err != nil {
			return nil, fmt.Errorf("read counters: %w", err)
		}
		if name == "" || f.active() {
			c.addTo(m)
		}
		if name != "" {
			byModel = append(byModel,
				modelCount{Name: name, Version: version, Status: enrichment.StatusAccepted, N: c[counterIndex[enrichment.StatusAccepted]]},
				modelCount{Name: name, Version: version, Status: enrichment.StatusRejected, N: c[counterIndex[enrichment.StatusRejected]]})
		}
	}
	return byModel, rows.Err()
}

// addIndexed counts client's revisions within w from the indexes, into m,
// and returns the decided ones with a model by model version.
func (s *Store) addIndexed(org enrichment.Org, client int64, w Window, f ModelFilter, m *enrichment.AcceptanceMetrics) ([]modelCount, error) {
	groups, err := s.metricsCounts(org, client, w, f)
	if err != nil {
		return nil, err
	}
	c := newCounts()
	var byModel []modelCount
	for _, g := range groups {
		if g.Part == "model" {
			byModel = append(byModel, modelCount{Name: g.Model, Version: g.Version, Status: g.Status, N: g.N})
			continue
		}
		c.count(g.Status, g.Band, g.Reason, g.N)
	}
	masks, err := s.decisionMasks(org, client, w, f)
	if err != nil {
		return nil, err
	}
	for _, g := range masks {
		c.countFields(g.Mask, g.N)
	}
	c.addTo(m)
	return byModel, nil
}

// decisionMasks counts client's decided revisions within w (of the
// filter's model) by decision mask, from the index that holds them
// (migrations/1795274710_field_metrics.go): the per-field counts of a
// window's edges. With a filter, the records of the edges are read too.
func (s *Store) decisionMasks(org enrichment.Org, client int64, w Window, f ModelFilter) ([]struct {
	Mask enrichment.FieldMask `db:"mask"`
	N    int                  `db:"n"`
}, error) {
	params := dbx.Params{"org": string(org), "client": FormatID(client)}
	where := "[[organization]] = {:org} AND [[apiClient]] = {:client} AND " + f.revisionSQL(params) + "[[status]] IN ('accepted', 'rejected')"
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
	// note: reverted revisions are in an index of their own
	reverted := strings.Replace(where, "[[status]] IN ('accepted', 'rejected')", "[[status]] = 'reverted'", 1)
	err := s.db().NewQuery("SELECT [[decisionMask]] AS [[mask]], COUNT(*) AS [[n]] FROM {{revisions}} INDEXED BY " +
		schema.IdxRevisionsDecidedFields + " WHERE " + where + " GROUP BY [[decisionMask]]" +
		" UNION ALL SELECT [[decisionMask]], COUNT(*) FROM {{revisions}} INDEXED BY " + schema.IdxRevisionsReverted +
		" WHERE " + reverted + " GROUP BY [[decisionMask]]").Bind(params).All(&out)
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
//   - superseded and expired: a count per status, by closedAt;
//   - decided with a model: grouped by status and model version, for
//     byModel, from the index of decided revisions with their model;
//   - reverted: by band and reason, and with a model by model version,
//     from the index of reverted revisions.
//
// With a filter, the first three parts also read the model of every
// revision they count: the records of the edges, not only index entries.
func (s *Store) metricsCounts(org enrichment.Org, client int64, w Window, f ModelFilter) ([]metricsCount, error) {
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
	tenant := " FROM {{revisions}} WHERE [[organization]] = {:org} AND [[apiClient]] = {:client} AND " + f.revisionSQL(params)
	none := ", '', ''"
	sql := "SELECT 'count' AS [[part]], [[status]], [[confidenceBand]] AS [[band]], [[reason]], COUNT(*) AS [[n]], '' AS [[mname]], '' AS [[mversion]]" +
		tenant + strings.Join(decided, " AND ") + " GROUP BY [[status]], [[confidenceBand]], [[reason]]" +
		" UNION ALL SELECT 'count', {:pending}, '', '', COUNT(*)" + none + tenant + strings.Join(pending, " AND ") +
		" UNION ALL SELECT 'count', [[status]], '', '', COUNT(*)" + none + tenant + strings.Join(closed, " AND ") + " GROUP BY [[status]]" +
		" UNION ALL SELECT 'model', [[status]], '', '', COUNT(*), COALESCE([[model]] ->> '$.name', ''), COALESCE([[model]] ->> '$.version', '')" +
		// note: named: without statistics SQLite took the client's decided
		// index there and read every record for its model
		strings.Replace(tenant, "{{revisions}}", "{{revisions}} INDEXED BY "+schema.IdxRevisionsDecidedModel, 1) +
		strings.Join(decided, " AND ") + " AND json_type([[model]]) = 'object' GROUP BY 2, 6, 7"
	reverted := append([]string{"[[status]] = 'reverted'"}, decided[3:]...) // the window
	revertedFrom := strings.Replace(tenant, "{{revisions}}", "{{revisions}} INDEXED BY "+schema.IdxRevisionsReverted, 1)
	sql += " UNION ALL SELECT 'count', 'reverted', [[confidenceBand]], [[reason]], COUNT(*)" + none + revertedFrom +
		strings.Join(reverted, " AND ") + " GROUP BY 3, 4" +
		" UNION ALL SELECT 'model', 'reverted', '', '', COUNT(*), COALESCE([[model]] ->> '$.name', ''), COALESCE([[model]] ->> '$.version', '')" +
		revertedFrom + strings.Join(reverted, " AND ") + " AND json_type([[model]]) = 'object' GROUP BY 6, 7"
	var counts []metricsCount
	if err := s.db().NewQuery(sql).Bind(params).All(&counts); err != nil {
		return nil, err
	}
	return counts, nil
}
