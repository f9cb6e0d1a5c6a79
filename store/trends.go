package store

import (
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// ReviewTrends are the Trends of the given API clients of org, as of now:
// the weeks from the day counters (store/metric_counts.go), which count a
// decision on the day of its reviewedAt as the acceptance metrics do, and
// the confidence buckets over all time from the index
// schema.IdxRevisionsDecidedTrends alone (the counters keep bands, not
// buckets of ten points).
func (s *Metrics) ReviewTrends(org enrichment.Org, clients []int64, now time.Time) (map[int64]enrichment.Trends, error) {
	out := make(map[int64]enrichment.Trends, len(clients))
	trends := make(map[string]*enrichment.Trends, len(clients))
	for _, id := range clients {
		t := enrichment.NewTrends(now)
		trends[FormatID(id)] = &t
	}
	if len(clients) == 0 {
		return out, nil
	}
	if err := s.countWeeks(org, now, trends); err != nil {
		return nil, err
	}
	if err := s.countConfidence(org, trends); err != nil {
		return nil, err
	}
	for client, t := range trends {
		t.Finish()
		out[sqlparts.StoredID(client)] = *t
	}
	return out, nil
}

// dayCount is one day counter row's decisions.
type dayCount struct {
	Client   string `db:"client"`
	Start    string `db:"start"`
	Accepted int    `db:"accepted"`
	Rejected int    `db:"rejected"`
}

// countWeeks adds the decisions of the weeks of trends' clients from their
// day counters: one range seek per client on the counters' key, at most
// 7 × enrichment.TrendWeeks rows each.
func (s *Metrics) countWeeks(org enrichment.Org, now time.Time, trends map[string]*enrichment.Trends) error {
	clients := make([]string, 0, len(trends))
	for client := range trends {
		clients = append(clients, client)
	}
	params := dbx.Params{"org": string(org), "span": spanDay, "since": FormatTime(enrichment.TrendsSince(now)),
		"clients": sqlparts.InValues(clients)}
	var days []dayCount
	err := s.db().NewQuery("SELECT [[client]], [[start]], [[accepted]], [[rejected]] FROM " + schema.MetricCountsTable +
		" WHERE [[organization]] = {:org} AND " + sqlparts.InList("client", "clients") + " AND [[span]] = {:span} AND [[start]] >= {:since}").
		Bind(params).All(&days)
	if err != nil {
		return fmt.Errorf("weekly decisions of organization %s: %w", org, err)
	}
	for _, d := range days {
		t := trends[d.Client]
		day := d.Start[:min(len(d.Start), len(time.DateOnly))]
		t.CountWeek(day, enrichment.StatusAccepted, d.Accepted)
		t.CountWeek(day, enrichment.StatusRejected, d.Rejected)
	}
	return nil
}

// confidenceCount is one group of the confidence query.
type confidenceCount struct {
	Client string `db:"client"`
	Status string `db:"status"`
	Bucket int    `db:"bucket"`
	N      int    `db:"n"`
}

// countConfidence adds the decided revisions of trends' clients by bucket of
// confidence, read from the index of decided revisions without a record.
func (s *Metrics) countConfidence(org enrichment.Org, trends map[string]*enrichment.Trends) error {
	// note: named, as the planner prefers the organization's other indexes;
	// the statuses are literals, which lets SQLite use the partial index. A
	// revision sent without confidence has none stored and no band.
	var buckets []confidenceCount
	err := s.db().NewQuery("SELECT [[apiClient]] AS [[client]], [[status]], CAST([[confidence]] AS INTEGER) / 10 AS [[bucket]], COUNT(*) AS [[n]]" +
		" FROM {{revisions}} INDEXED BY " + schema.IdxRevisionsDecidedTrends +
		" WHERE [[organization]] = {:org} AND [[status]] IN ('accepted', 'rejected') AND [[confidenceBand]] != ''" +
		" GROUP BY [[apiClient]], [[status]], [[bucket]]").Bind(dbx.Params{"org": string(org)}).All(&buckets)
	if err != nil {
		return fmt.Errorf("decisions by confidence of organization %s: %w", org, err)
	}
	for _, c := range buckets {
		if t := trends[c.Client]; t != nil {
			t.CountConfidence(c.Bucket, c.Status, c.N)
		}
	}
	return nil
}
