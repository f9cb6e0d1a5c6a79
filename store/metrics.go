package store

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/dbx"
)

// Window bounds the metrics strictly on both sides; a zero time is no bound.
// A decided revision counts by its reviewedAt, a pending one by its created.
type Window struct {
	Since, Until time.Time
}

// metricsCount is one group of the metrics query.
type metricsCount struct {
	Band   string `db:"band"`
	Status string `db:"status"`
	N      int    `db:"n"`
}

// AcceptanceMetrics counts the revisions that API client submitted for org
// within w. The database does the counting, in one statement of two halves,
// each answered from a covering index (see
// migrations/1795272300_revision_metrics_indexes.go), so no revision record
// is read and the cost grows with the index entries in the window:
//   - decided: grouped by status and band, in the index's own order (no
//     sort); listing every band value, "" included, turns the window into
//     one range seek on reviewedAt per status and band;
//   - pending: a plain count, as bands hold decided revisions only.
func (s *Store) AcceptanceMetrics(org enrichment.Org, client int64, w Window) (enrichment.AcceptanceMetrics, error) {
	params := dbx.Params{
		"org":      string(org),
		"client":   FormatID(client),
		"accepted": enrichment.StatusAccepted,
		"rejected": enrichment.StatusRejected,
		"pending":  enrichment.StatusPending,
	}
	// note: confidenceBand is a select field, so these are all its values
	bands := make([]string, 0, len(enrichment.ConfidenceBands)+1)
	for i, band := range append([]string{""}, enrichment.ConfidenceBands...) {
		name := "band" + strconv.Itoa(i)
		params[name] = band
		bands = append(bands, "{:"+name+"}")
	}
	decided := []string{"[[status]] IN ({:accepted}, {:rejected})", "[[confidenceBand]] IN (" + strings.Join(bands, ", ") + ")"}
	pending := []string{"[[status]] = {:pending}"}
	if !w.Since.IsZero() {
		params["since"] = FormatTime(w.Since)
		decided = append(decided, "[[reviewedAt]] > {:since}")
		pending = append(pending, "[[created]] > {:since}")
	}
	if !w.Until.IsZero() {
		params["until"] = FormatTime(w.Until)
		decided = append(decided, "[[reviewedAt]] < {:until}")
		pending = append(pending, "[[created]] < {:until}")
	}
	const tenant = " FROM {{revisions}} WHERE [[organization]] = {:org} AND [[apiClient]] = {:client} AND "
	sql := "SELECT [[status]], [[confidenceBand]] AS [[band]], COUNT(*) AS [[n]]" + tenant + strings.Join(decided, " AND ") +
		" GROUP BY [[status]], [[confidenceBand]]" +
		" UNION ALL SELECT {:pending}, '', COUNT(*)" + tenant + strings.Join(pending, " AND ")
	var counts []metricsCount
	if err := s.db().NewQuery(sql).Bind(params).All(&counts); err != nil {
		return enrichment.AcceptanceMetrics{}, fmt.Errorf("acceptance metrics of client %d of organization %s: %w", client, org, err)
	}
	return sumMetrics(counts), nil
}

// sumMetrics folds the grouped counts into the response: totals over every
// revision, bands over the decided ones that carry a confidence.
func sumMetrics(counts []metricsCount) enrichment.AcceptanceMetrics {
	m := enrichment.AcceptanceMetrics{ByConfidenceBand: make([]enrichment.BandMetrics, len(enrichment.ConfidenceBands))}
	for i, band := range enrichment.ConfidenceBands {
		m.ByConfidenceBand[i].Band = band
	}
	for _, c := range counts {
		switch c.Status {
		case enrichment.StatusAccepted:
			m.Accepted += c.N
		case enrichment.StatusRejected:
			m.Rejected += c.N
		case enrichment.StatusPending:
			m.Pending += c.N
			continue
		}
		// note: "" (submitted without confidence) is in no band
		if i := slices.Index(enrichment.ConfidenceBands, c.Band); i >= 0 {
			b := &m.ByConfidenceBand[i]
			b.Reviewed += c.N
			if c.Status == enrichment.StatusAccepted {
				b.Accepted += c.N
			}
		}
	}
	m.Reviewed = m.Accepted + m.Rejected
	m.TotalSubmitted = m.Reviewed + m.Pending
	m.AcceptanceRate = rate(m.Accepted, m.Reviewed)
	for i := range m.ByConfidenceBand {
		b := &m.ByConfidenceBand[i]
		b.AcceptanceRate = rate(b.Accepted, b.Reviewed)
	}
	return m
}

// rate is accepted/reviewed rounded half up to four decimals, 0 when nothing
// was reviewed. note: rounded in integers, so 1/3 is 0.3333 and 2/3 0.6667
// exactly, with no float error at the half.
func rate(accepted, reviewed int) float64 {
	if reviewed == 0 {
		return 0
	}
	tenThousandths := (int64(accepted)*20000 + int64(reviewed)) / (2 * int64(reviewed))
	return float64(tenThousandths) / 10000
}
