package store_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pocketbase/dbx"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
)

// TestMetricsPlan checks that the statements of a metrics window read the
// counters (the client's, and the models' for byModel) by range seeks on
// their primary key, and the revisions of the window's edges from covering
// indexes, one range seek on reviewedAt for the decided ones, without
// reading a revision record unless a model filter needs it, and without
// sorting but for the grouping of a few rows.
func TestMetricsPlan(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	counters, edges, maxRanges, maxEdges := store.MetricsStatements()
	plan := func(t *testing.T, q string) []string {
		t.Helper()
		// note: every ?N needs a value, though a plan does not use it
		params := 0
		for _, m := range regexp.MustCompile(`\?(\d+)`).FindAllStringSubmatch(q, -1) {
			n, _ := strconv.Atoi(m[1])
			params = max(params, n)
		}
		rows, err := app.ConcurrentDB().(*dbx.DB).DB().Query("EXPLAIN QUERY PLAN "+q, make([]any, params)...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(detail, "TEMP B-TREE") && detail != "USE TEMP B-TREE FOR GROUP BY" {
				t.Errorf("the metrics sort their rows: %q", detail)
			}
			lines = append(lines, detail)
		}
		t.Logf("%s\n%s", q, strings.Join(lines, "\n"))
		return lines
	}

	for _, q := range counters {
		seeks := 0
		for _, line := range plan(t, q) {
			if !strings.Contains(line, schema.MetricCountsTable) && !strings.Contains(line, schema.ModelCountsTable) {
				continue
			}
			if !strings.Contains(line, "USING PRIMARY KEY (organization=? AND client=? AND span=? AND start>? AND start<?)") {
				t.Errorf("counters not read by a range seek: %q", line)
			}
			seeks++
		}
		if seeks != maxRanges {
			t.Errorf("%d counter seeks, want %d", seeks, maxRanges)
		}
	}

	for filtered, q := range edges {
		var decided, other int
		for _, line := range plan(t, q) {
			switch {
			case strings.Contains(line, "USING COVERING INDEX "+schema.IdxRevisionsDecidedEdges+" (organization=? AND apiClient=? AND reviewedAt>? AND reviewedAt<?)"):
				decided++
			case strings.Contains(line, "USING COVERING INDEX idx_revisions_client_created (") ||
				strings.Contains(line, "USING COVERING INDEX idx_revisions_client_closed ("):
				other++
			case filtered == 1 && (strings.Contains(line, "USING INDEX idx_revisions_client_created (") ||
				strings.Contains(line, "USING INDEX idx_revisions_client_closed (")):
				other++ // a filter reads the model from the record
			case strings.Contains(line, "revisions"):
				t.Errorf("revisions not read by their index: %q", line)
			}
		}
		if decided != maxEdges || other != 2*maxEdges {
			t.Errorf("filtered %d: %d decided and %d other seeks, want %d and %d", filtered, decided, other, maxEdges, 2*maxEdges)
		}
	}
}
