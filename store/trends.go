package store

import (
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// trendCount is one group of the trends queries: a client's decisions of one
// status on one day, or in one confidence bucket.
type trendCount struct {
	Client string `db:"client"`
	Status string `db:"status"`
	Day    string `db:"day"`
	Bucket int    `db:"bucket"`
	N      int    `db:"n"`
}

// ReviewTrends are the Trends of each API client of org that decided
// revisions have, as of now: the weeks by reviewedAt, as the acceptance
// metrics count them, and the confidence buckets over all time. Both
// queries read the index schema.IdxRevisionsDecidedTrends alone.
func (s *Store) ReviewTrends(org enrichment.Org, now time.Time) (map[int64]enrichment.Trends, error) {
	params := dbx.Params{"org": string(org), "since": FormatTime(enrichment.TrendsSince(now))}
	// note: named, as the planner prefers the organization's other indexes;
	// the statuses are literals, which lets SQLite use the partial index
	decided := " FROM {{revisions}} INDEXED BY " + schema.IdxRevisionsDecidedTrends +
		" WHERE [[organization]] = {:org} AND [[status]] IN ('accepted', 'rejected')"
	var days, buckets []trendCount
	err := s.db().NewQuery("SELECT [[apiClient]] AS [[client]], [[status]], substr([[reviewedAt]], 1, 10) AS [[day]], COUNT(*) AS [[n]]" +
		decided + " AND [[reviewedAt]] >= {:since} GROUP BY [[apiClient]], [[status]], [[day]]").Bind(params).All(&days)
	if err != nil {
		return nil, fmt.Errorf("weekly decisions of organization %s: %w", org, err)
	}
	// note: a revision sent without confidence has none stored and no band
	err = s.db().NewQuery("SELECT [[apiClient]] AS [[client]], [[status]], CAST([[confidence]] AS INTEGER) / 10 AS [[bucket]], COUNT(*) AS [[n]]" +
		decided + " AND [[confidenceBand]] != '' GROUP BY [[apiClient]], [[status]], [[bucket]]").Bind(params).All(&buckets)
	if err != nil {
		return nil, fmt.Errorf("decisions by confidence of organization %s: %w", org, err)
	}
	byClient := map[int64]*enrichment.Trends{}
	of := func(client string) *enrichment.Trends {
		id := ParseID(client)
		if byClient[id] == nil {
			fresh := enrichment.NewTrends(now)
			byClient[id] = &fresh
		}
		return byClient[id]
	}
	for _, c := range days {
		of(c.Client).CountWeek(c.Day, c.Status, c.N)
	}
	for _, c := range buckets {
		of(c.Client).CountConfidence(c.Bucket, c.Status, c.N)
	}
	out := make(map[int64]enrichment.Trends, len(byClient))
	for id, t := range byClient {
		t.Finish()
		out[id] = *t
	}
	return out, nil
}
