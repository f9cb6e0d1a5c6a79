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
// within w.
func (s *Store) AcceptanceMetrics(org enrichment.Org, client int64, w Window) (enrichment.AcceptanceMetrics, error) {
	counts, err := s.metricsCounts(org, client, w)
	if err != nil {
		return enrichment.AcceptanceMetrics{}, fmt.Errorf("acceptance metrics of client %d of organization %s: %w", client, org, err)
	}
	m := enrichment.NewAcceptanceMetrics()
	for _, c := range counts {
		c.add(&m)
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

// metricsCounts counts the revisions of org's client clientID (every client
// when 0) within w, by client, status, band and reason. The database does the
// counting, in one statement of three parts, each answered from a covering
// index (see migrations/1795272800_review_loop.go), so no revision record is
// read and the cost grows with the index entries in the window:
//   - decided: grouped by status, band and reason in the index's own order
//     (no sort); listing every band and reason value, "" included, turns the
//     window into one range seek on reviewedAt per group;
//   - pending: a plain count, by created;
//   - superseded and expired: a count per status, by closedAt.
func (s *Store) metricsCounts(org enrichment.Org, clientID int64, w Window) ([]metricsCount, error) {
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
	// note: one client is a constant, not a group: grouping by apiClient
	// made SQLite walk the client's id index and read every record
	tenant := " FROM {{revisions}} WHERE [[organization]] = {:org} AND "
	client, byClient := "[[apiClient]]", "[[apiClient]], "
	if clientID != 0 {
		params["client"] = FormatID(clientID)
		tenant += "[[apiClient]] = {:client} AND "
		client, byClient = "{:client}", ""
	}
	pendingGroup := ""
	if clientID == 0 {
		pendingGroup = " GROUP BY [[apiClient]]"
	}
	sql := "SELECT " + client + " AS [[client]], [[status]], [[confidenceBand]] AS [[band]], [[reason]], COUNT(*) AS [[n]]" +
		tenant + strings.Join(decided, " AND ") + " GROUP BY " + byClient + "[[status]], [[confidenceBand]], [[reason]]" +
		" UNION ALL SELECT " + client + ", {:pending}, '', '', COUNT(*)" + tenant + strings.Join(pending, " AND ") + pendingGroup +
		" UNION ALL SELECT " + client + ", [[status]], '', '', COUNT(*)" + tenant + strings.Join(closed, " AND ") +
		" GROUP BY " + byClient + "[[status]]"
	var counts []metricsCount
	if err := s.db().NewQuery(sql).Bind(params).All(&counts); err != nil {
		return nil, err
	}
	return counts, nil
}
