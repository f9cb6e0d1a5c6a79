package opsmetrics

import (
	"os"
	"path/filepath"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// stateCollector reads, at each scrape, the series whose value is a state
// of the service rather than a count of this process's events.
type stateCollector struct {
	app core.App
	m   *Metrics
}

func newStateCollector(app core.App, m *Metrics) *stateCollector {
	return &stateCollector{app: app, m: m}
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(namespace, "", name), help, labels, nil)
}

var (
	pendingDesc           = desc("pending_revisions", "Revisions waiting for a decision.")
	pendingOrgDesc        = desc("organization_pending_revisions", "Revisions waiting for a decision, by organization id.", "organization")
	oldestPendingDesc     = desc("oldest_pending_age_seconds", "Age of the oldest revision waiting for a decision; 0 when none waits.")
	oldestPendingOrgDesc  = desc("organization_oldest_pending_age_seconds", "Age of the organization's oldest pending revision; 0 when none waits.", "organization")
	decisionsDesc         = desc("decisions_total", "Decisions on revisions by who made them (reviewer, policy).", "decided_by")
	policiesDesc          = desc("trust_policies", "Trust policies by state.", "state")
	auditsDesc            = desc("audits_waiting", "Policy decisions drawn for audit and waiting for a reviewer.")
	deliveriesDueDesc     = desc("webhook_deliveries_due", "Webhook deliveries due for an attempt now.")
	oldestDeliveryDesc    = desc("webhook_oldest_due_age_seconds", "How long the longest-waiting due delivery has been due; 0 when none is.")
	dbSizeDesc            = desc("db_size_bytes", "Size of data.db in bytes.")
	walSizeDesc           = desc("db_wal_size_bytes", "Size of data.db's write-ahead log in bytes.")
	replicationLagDesc    = desc("replication_lag_seconds", "How long the oldest change the replica lacks has waited; only while replicating.")
	replicationErrorsDesc = desc("replication_errors_total", "Errors of the replication since the start; only while replicating.")
	checkpointsDesc       = desc("db_checkpoints_total", "Checkpoints of data.db: the server's background checkpointer's, or the replication's (Litestream) while replicating.")
	checkpointSecsDesc    = desc("db_checkpoint_seconds_total", "Time spent in those checkpoints.")
	scrapeErrorsDesc      = desc("scrape_errors", "Parts of this scrape that could not be read (see the log).")
)

// Describe sends every series the collector may send.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{pendingDesc, pendingOrgDesc, oldestPendingDesc, oldestPendingOrgDesc,
		decisionsDesc, policiesDesc, auditsDesc, deliveriesDueDesc, oldestDeliveryDesc, dbSizeDesc, walSizeDesc,
		replicationLagDesc, replicationErrorsDesc, checkpointsDesc, checkpointSecsDesc, scrapeErrorsDesc} {
		ch <- d
	}
}

// Collect reads the state; a part that fails is logged and counted in
// scrape_errors, and the rest is still sent.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	now := clock.Now(c.app)
	st := store.New(c.app)
	failed := 0
	for _, part := range []func(*store.Store, time.Time, chan<- prometheus.Metric) error{
		collectQueues, collectDecisions, collectPolicies, collectDeliveries,
	} {
		if err := part(st, now, ch); err != nil {
			failed++
			c.app.Logger().Error("enrichment: metrics scrape", "error", err.Error())
		}
	}
	c.collectFiles(ch)
	if read := c.m.readReplication(); read != nil {
		r := read()
		ch <- gauge(replicationLagDesc, r.LagSeconds)
		ch <- prometheus.MustNewConstMetric(replicationErrorsDesc, prometheus.CounterValue, float64(r.Errors))
		collectLitestreamCheckpoints(ch)
	} else if read := c.m.readCheckpoints(); read != nil {
		cp := read()
		ch <- prometheus.MustNewConstMetric(checkpointsDesc, prometheus.CounterValue, float64(cp.Count))
		ch <- prometheus.MustNewConstMetric(checkpointSecsDesc, prometheus.CounterValue, cp.Seconds)
	}
	ch <- gauge(scrapeErrorsDesc, float64(failed))
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

// age is the seconds from t to now; 0 for a zero t.
func age(now, t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return max(0, now.Sub(t).Seconds())
}

func collectQueues(st *store.Store, now time.Time, ch chan<- prometheus.Metric) error {
	queues, err := st.Review().Queues()
	if err != nil {
		return err
	}
	var pending, audits int64
	var oldest time.Time
	for _, q := range queues {
		pending += q.Pending
		audits += q.Audits
		if !q.Oldest.IsZero() && (oldest.IsZero() || q.Oldest.Before(oldest)) {
			oldest = q.Oldest
		}
		ch <- gauge(pendingOrgDesc, float64(q.Pending), q.Org)
		ch <- gauge(oldestPendingOrgDesc, age(now, q.Oldest), q.Org)
	}
	ch <- gauge(pendingDesc, float64(pending))
	ch <- gauge(oldestPendingDesc, age(now, oldest))
	ch <- gauge(auditsDesc, float64(audits))
	return nil
}

func collectDecisions(st *store.Store, _ time.Time, ch chan<- prometheus.Metric) error {
	counts, err := st.Review().DecisionCounts()
	if err != nil {
		return err
	}
	for by, n := range counts {
		ch <- prometheus.MustNewConstMetric(decisionsDesc, prometheus.CounterValue, float64(n), by)
	}
	return nil
}

func collectPolicies(st *store.Store, _ time.Time, ch chan<- prometheus.Metric) error {
	counts, err := st.Trust().PoliciesByState()
	if err != nil {
		return err
	}
	for state, n := range counts {
		ch <- gauge(policiesDesc, float64(n), state)
	}
	return nil
}

func collectDeliveries(st *store.Store, now time.Time, ch chan<- prometheus.Metric) error {
	n, oldest, err := st.Outbox().DeliveriesDue(now)
	if err != nil {
		return err
	}
	ch <- gauge(deliveriesDueDesc, float64(n))
	ch <- gauge(oldestDeliveryDesc, age(now, oldest))
	return nil
}

// collectFiles sends the sizes of data.db and its WAL (0 when absent).
func (c *stateCollector) collectFiles(ch chan<- prometheus.Metric) {
	db := filepath.Join(c.app.DataDir(), "data.db")
	ch <- gauge(dbSizeDesc, fileSize(db))
	ch <- gauge(walSizeDesc, fileSize(db+"-wal"))
}

func fileSize(path string) float64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return float64(fi.Size())
}

// collectLitestreamCheckpoints sends the checkpoints Litestream ran and their time.
// note: Litestream counts them in its own series on Prometheus's default
// registry (litestream_checkpoint_count and _seconds, by database and
// mode); the replicator is the only writer of data.db's checkpoints while
// it runs (wal_autocheckpoint is off then, service/db.go).
func collectLitestreamCheckpoints(ch chan<- prometheus.Metric) {
	families, _ := prometheus.DefaultGatherer.Gather()
	n, secs := sumCounter(families, "litestream_checkpoint_count"), sumCounter(families, "litestream_checkpoint_seconds")
	ch <- prometheus.MustNewConstMetric(checkpointsDesc, prometheus.CounterValue, n)
	ch <- prometheus.MustNewConstMetric(checkpointSecsDesc, prometheus.CounterValue, secs)
}

func sumCounter(families []*dto.MetricFamily, name string) float64 {
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}
