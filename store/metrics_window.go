package store

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
)

// The statements of a metrics window (see AcceptanceMetrics). Each has a
// fixed shape whatever the window, so it is prepared once per app
// (prepared.go): a window's ranges and edges are parameters, an unused one
// an empty range. ?1 is the organization and ?2 the client throughout.

// maxRanges is the most bucket ranges cover makes: finer ones around
// coarser ones on both sides (hours, days, months, days, hours).
const maxRanges = 5

// noSpan names no counter span: the bounds of an unused range.
const noSpan = "none"

// counterRangesSQL is the WHERE clause of a client's counter rows in any
// of maxRanges bucket ranges, each a span and a [from, to) of bucket
// starts from ?3 on; one range seek on the primary key each.
func counterRangesSQL(table, columns string) string {
	parts := make([]string, maxRanges)
	for i := range parts {
		n := 3 + 3*i
		parts[i] = fmt.Sprintf("SELECT %s FROM %s WHERE organization = ?1 AND client = ?2 AND span = ?%d AND start >= ?%d AND start < ?%d",
			columns, table, n, n+1, n+2)
	}
	return strings.Join(parts, " UNION ALL ")
}

// The parameters after the ranges: a model filter's name and version, ""
// for any.
var (
	modelNameParam    = "?" + strconv.Itoa(3+3*maxRanges)
	modelVersionParam = "?" + strconv.Itoa(4+3*maxRanges)
)

// sumOf is every counter column summed, in counterColumns order.
func sumOf() string {
	sums := make([]string, len(counterColumns))
	for i, c := range counterColumns {
		sums[i] = "COALESCE(SUM(" + c.name + "), 0)"
	}
	return strings.Join(sums, ", ")
}

var (
	// clientCountersSQL sums the client's counters over the ranges.
	clientCountersSQL = "SELECT " + sumOf() + " FROM (" +
		counterRangesSQL(schema.MetricCountsTable, strings.Join(counterNames(""), ", ")) + ")"
	// modelDecisionsSQL sums the accepted and rejected revisions of the
	// model counters over the ranges, by model version: byModel.
	modelDecisionsSQL = "SELECT model, version, SUM(accepted), SUM(rejected) FROM (" +
		counterRangesSQL(schema.ModelCountsTable, "model, version, accepted, rejected") + ") GROUP BY model, version"
	// modelCountersSQL sums the counters of one model (and version) over
	// the ranges, by model version: the whole answer of a filtered window.
	modelCountersSQL = "SELECT model, version, " + sumOf() + " FROM (" +
		counterRangesSQL(schema.ModelCountsTable, "model, version, "+strings.Join(counterNames(""), ", ")) + ")" +
		" WHERE (" + modelNameParam + " = '' OR model = " + modelNameParam + ")" +
		" AND (" + modelVersionParam + " = '' OR version = " + modelVersionParam + ") GROUP BY model, version"
)

// rangeArgs are the parameters of a statement over ranges (at most
// maxRanges), then extra.
func rangeArgs(org enrichment.Org, client int64, ranges []bucketRange, extra ...any) []any {
	args := make([]any, 0, 2+3*maxRanges+len(extra))
	args = append(args, string(org), FormatID(client))
	for i := range maxRanges {
		switch {
		case i >= len(ranges):
			args = append(args, noSpan, "", "")
		case ranges[i].span == spanAll:
			args = append(args, spanAll, "", "~")
		default:
			args = append(args, ranges[i].span, FormatTime(ranges[i].from), FormatTime(ranges[i].to))
		}
	}
	return append(args, extra...)
}

// addCounters adds client's counters of the bucket ranges to m and returns
// the decided revisions of the model counters by model version. Without a
// filter the client's counters make m and the model counters give byModel
// (their accepted and rejected columns only); with one, only the model
// counters are read, and they make both.
func (s *Metrics) addCounters(org enrichment.Org, client int64, ranges []bucketRange, f ModelFilter, m *enrichment.AcceptanceMetrics) ([]modelCount, error) {
	if len(ranges) > maxRanges {
		return nil, fmt.Errorf("%d bucket ranges, more than %d", len(ranges), maxRanges)
	}
	if f.active() {
		return s.readModelCounts(modelCountersSQL, rangeArgs(org, client, ranges, f.Name, f.Version), m)
	}
	rows, err := s.readPrepared(clientCountersSQL, rangeArgs(org, client, ranges)...)
	if err != nil {
		return nil, err
	}
	c := newCounts()
	for rows.Next() {
		if err := rows.Scan(c.targets()...); err != nil {
			rows.Close()
			return nil, err
		}
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	c.addTo(m)
	return s.readModelCounts(modelDecisionsSQL, rangeArgs(org, client, ranges), nil)
}

// readModelCounts reads rows of a model name and version followed by every
// counter, added to m, or (m nil) by the accepted and rejected revisions
// alone; it returns the decided revisions by model version.
func (s *Metrics) readModelCounts(query string, args []any, m *enrichment.AcceptanceMetrics) ([]modelCount, error) {
	rows, err := s.readPrepared(query, args...)
	if err != nil {
		return nil, err
	}
	accepted, rejected := counterIndex[enrichment.StatusAccepted], counterIndex[enrichment.StatusRejected]
	var byModel []modelCount
	for rows.Next() {
		var name, version string
		c := newCounts()
		targets := []any{&name, &version, &c[accepted], &c[rejected]}
		if m != nil {
			targets = append(targets[:2], c.targets()...)
		}
		if err := rows.Scan(targets...); err != nil {
			rows.Close()
			return nil, err
		}
		if m != nil {
			c.addTo(m)
		}
		byModel = append(byModel,
			modelCount{Name: name, Version: version, Status: enrichment.StatusAccepted, N: c[accepted]},
			modelCount{Name: name, Version: version, Status: enrichment.StatusRejected, N: c[rejected]})
	}
	return byModel, closeRows(rows)
}

// closeRows closes rows, reporting the error that ended them if any.
func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if closeErr := rows.Close(); err == nil {
		err = closeErr
	}
	return err
}

// maxEdges is the most windows at a window's edges windowPlan makes.
const maxEdges = 2

// edgeSQL counts a client's revisions within each of maxEdges windows
// (?3 to ?4, ?5 to ?6, bounds excluded) from the revisions' indexes, so
// no record is read without a filter:
//   - decided (reverted ones too, which count as rejected): by status,
//     band, reason, decision mask and model version,
//     from the index that orders them by reviewedAt with all of these
//     (schema.IdxRevisionsDecidedEdges): one range seek per window;
//   - pending: a count, by created;
//   - superseded and expired: a count per status, by closedAt.
//
// Filtered, it counts only the revisions of the model ?7 and version ?8
// ("" for any), which reads the pending and closed revisions' records.
func edgeSQL(filtered bool) string {
	filter := ""
	if filtered {
		filter = " AND (?7 = '' OR model ->> '$.name' = ?7) AND (?8 = '' OR model ->> '$.version' = ?8)"
	}
	var parts []string
	for i := range maxEdges {
		since, until := "?"+strconv.Itoa(3+2*i), "?"+strconv.Itoa(4+2*i)
		tenant := " WHERE organization = ?1 AND apiClient = ?2" + filter + " AND "
		parts = append(parts,
			"SELECT status, confidenceBand, reason, decisionMask, COALESCE(model ->> '$.name', ''), COALESCE(model ->> '$.version', ''), COUNT(*)"+
				" FROM revisions INDEXED BY "+schema.IdxRevisionsDecidedEdges+tenant+
				"status IN ('accepted', 'rejected', 'reverted') AND reviewedAt > "+since+" AND reviewedAt < "+until+" GROUP BY 1, 2, 3, 4, 5, 6",
			"SELECT 'pending', '', '', 0, '', '', COUNT(*) FROM revisions"+tenant+
				"status = 'pending' AND created > "+since+" AND created < "+until,
			"SELECT status, '', '', 0, '', '', COUNT(*) FROM revisions"+tenant+
				"status IN ('superseded', 'expired') AND closedAt > "+since+" AND closedAt < "+until+" GROUP BY 1")
	}
	return strings.Join(parts, " UNION ALL ")
}

// The edge statements, unfiltered and filtered.
var edgeStatements = [2]string{edgeSQL(false), edgeSQL(true)}

// addEdges counts client's revisions within the windows (at most
// maxEdges; a zero bound is open) into m and returns the decided ones with
// a model by model version.
func (s *Metrics) addEdges(org enrichment.Org, client int64, edges []Window, f ModelFilter, m *enrichment.AcceptanceMetrics) ([]modelCount, error) {
	if len(edges) > maxEdges {
		return nil, fmt.Errorf("%d edge windows, more than %d", len(edges), maxEdges)
	}
	args := []any{string(org), FormatID(client)}
	for i := range maxEdges {
		since, until := "", "" // nothing is after "" and before it
		if i < len(edges) {
			since, until = FormatTime(beforeAll), FormatTime(afterAll)
			if !edges[i].Since.IsZero() {
				since = FormatTime(edges[i].Since)
			}
			if !edges[i].Until.IsZero() {
				until = FormatTime(edges[i].Until)
			}
		}
		args = append(args, since, until)
	}
	query := edgeStatements[0]
	if f.active() {
		query = edgeStatements[1]
		args = append(args, f.Name, f.Version)
	}
	rows, err := s.readPrepared(query, args...)
	if err != nil {
		return nil, err
	}
	c := newCounts()
	var byModel []modelCount
	for rows.Next() {
		var status, band, reason, name, version string
		var mask enrichment.FieldMask
		var n int
		if err := rows.Scan(&status, &band, &reason, &mask, &name, &version, &n); err != nil {
			rows.Close()
			return nil, err
		}
		c.count(status, band, reason, n)
		switch status {
		case enrichment.StatusAccepted, enrichment.StatusRejected, enrichment.StatusReverted:
			c.countFields(mask, n)
		}
		if name != "" {
			byModel = append(byModel, modelCount{Name: name, Version: version, Status: status, N: n})
		}
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	c.addTo(m)
	return byModel, nil
}
