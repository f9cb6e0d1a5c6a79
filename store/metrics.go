package store

import (
	"fmt"
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
	Client string `db:"client"`
	Band   string `db:"band"`
	Status string `db:"status"`
	N      int    `db:"n"`
}

// AcceptanceMetrics counts the revisions that API client submitted for org
// within w.
func (s *Store) AcceptanceMetrics(org enrichment.Org, client int64, w Window) (enrichment.AcceptanceMetrics, error) {
	counts, err := s.metricsCounts(org, client, w)
	if err != nil {
		return enrichment.AcceptanceMetrics{}, fmt.Errorf("acceptance metrics of client %d of organization %s: %w", client, org, err)
	}
	m := enrichment.NewAcceptanceMetrics()
	for _, c := range counts {
		m.Count(c.Status, c.Band, c.N)
	}
	m.Finish()
	return m, nil
}

// Overview is the acceptance metrics of every API client of org that
// submitted anything, in id order, and of all of them together, without a
// window: the reviewers' overview.
func (s *Store) Overview(org enrichment.Org) (enrichment.Overview, error) {
	counts, err := s.metricsCounts(org, 0, Window{})
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
		m.Count(c.Status, c.Band, c.N)
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

// metricsCounts counts the revisions of org's client clientID (every client
// when 0) within w, by client, status and band. The database does the
// counting, in one statement of two halves, each answered from a covering
// index (see migrations/1795272300_revision_metrics_indexes.go), so no
// revision record is read and the cost grows with the index entries in the
// window:
//   - decided: grouped by status and band, in the index's own order (no
//     sort); listing every band value, "" included, turns the window into
//     one range seek on reviewedAt per status and band;
//   - pending: a plain count, as bands hold decided revisions only.
func (s *Store) metricsCounts(org enrichment.Org, clientID int64, w Window) ([]metricsCount, error) {
	params := dbx.Params{
		"org":      string(org),
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
	// note: one client is a constant, not a group: grouping by apiClient
	// made SQLite walk the client's id index and read every record
	tenant := " FROM {{revisions}} WHERE [[organization]] = {:org} AND "
	client, decidedGroup, pendingGroup := "[[apiClient]]", " GROUP BY [[apiClient]], [[status]], [[confidenceBand]]", " GROUP BY [[apiClient]]"
	if clientID != 0 {
		params["client"] = FormatID(clientID)
		tenant += "[[apiClient]] = {:client} AND "
		client, decidedGroup, pendingGroup = "{:client}", " GROUP BY [[status]], [[confidenceBand]]", ""
	}
	sql := "SELECT " + client + " AS [[client]], [[status]], [[confidenceBand]] AS [[band]], COUNT(*) AS [[n]]" +
		tenant + strings.Join(decided, " AND ") + decidedGroup +
		" UNION ALL SELECT " + client + ", {:pending}, '', COUNT(*)" + tenant + strings.Join(pending, " AND ") + pendingGroup
	var counts []metricsCount
	if err := s.db().NewQuery(sql).Bind(params).All(&counts); err != nil {
		return nil, err
	}
	return counts, nil
}
