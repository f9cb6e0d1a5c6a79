// Package opsmetrics is what operators scrape: the service's Prometheus
// series (GET /metrics), kept with github.com/prometheus/client_golang.
// Events (requests, proposals, deliveries, refusals) are counted in memory
// where they happen; the queue's, the outbox's and the policies' gauges are
// read at scrape time from counter tables and indexes (store/opsmetrics.go),
// never by scanning the catalog.
package opsmetrics

import (
	"sync"

	"github.com/pocketbase/pocketbase/core"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// namespace prefixes every series of the service.
const namespace = "enrichment"

// Metrics are one app's series and the registry that exposes them.
type Metrics struct {
	registry *prometheus.Registry

	// Requests counts /api/enrichment requests by route pattern and status
	// class ("2xx".."5xx"); Duration times them by route pattern.
	Requests *prometheus.CounterVec
	Duration *prometheus.HistogramVec
	// Proposals counts stored submission items by result status.
	Proposals *prometheus.CounterVec
	// Deliveries counts webhook delivery attempts by outcome.
	Deliveries *prometheus.CounterVec
	// RateLimited counts requests refused by an API key's rate limit;
	// BodyBudget those refused because request bodies in flight used the
	// server's whole budget.
	RateLimited prometheus.Counter
	BodyBudget  prometheus.Counter

	mu          sync.Mutex
	config      Config
	replication func() Replication // nil unless replicating
	checkpoints func() Checkpoints // nil unless the checkpointer runs
	addr        string             // the second listener's address, once listening
}

// Delivery outcomes of Metrics.Deliveries.
const (
	DeliveryDelivered = "delivered"
	DeliveryRetry     = "retry"  // failed, tried again later
	DeliveryFailed    = "failed" // failed for good
)

// storeKey holds an app's Metrics in its store.
const storeKey = "enrichment.opsmetrics"

// Of returns app's metrics, made on first use: every part of the service
// counts into the same registry without passing it around.
func Of(app core.App) *Metrics {
	return app.Store().GetOrSet(storeKey, func() any { return newMetrics(app) }).(*Metrics)
}

func newMetrics(app core.App) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "http_requests_total",
			Help: "Requests of the /api/enrichment routes by route pattern and status class."}, []string{"route", "code"}),
		Duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "http_request_duration_seconds",
			Help:    "Time to answer /api/enrichment requests by route pattern.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"route"}),
		Proposals: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "proposals_total",
			Help: "Submission items stored, by result status."}, []string{"status"}),
		Deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_deliveries_total",
			Help: "Webhook delivery attempts by outcome (delivered, retry, failed)."}, []string{"outcome"}),
		RateLimited: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "rate_limited_total",
			Help: "Requests refused with 429 by an API key's rate limit."}),
		BodyBudget: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "body_budget_refused_total",
			Help: "Requests refused with 503 because request bodies in flight used the whole budget."}),
	}
	m.registry.MustRegister(m.Requests, m.Duration, m.Proposals, m.Deliveries, m.RateLimited, m.BodyBudget,
		newStateCollector(app, m),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Replication is what a scrape shows of the replication while it runs.
type Replication struct {
	LagSeconds float64
	Errors     uint64 // errors Litestream logged since the start
}

// SetReplication tells the metrics how to read the replication's state;
// nil while the app does not replicate.
func (m *Metrics) SetReplication(read func() Replication) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replication = read
}

// Checkpoints are the background checkpointer's checkpoints of data.db
// (checkpoint/) so far.
type Checkpoints struct {
	Count   int
	Seconds float64
}

// SetCheckpoints tells the metrics how to read the checkpointer's
// checkpoints; nil while none runs.
func (m *Metrics) SetCheckpoints(read func() Checkpoints) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checkpoints = read
}

func (m *Metrics) readCheckpoints() func() Checkpoints {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.checkpoints
}

func (m *Metrics) readReplication() func() Replication {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.replication
}

// Registry is the registry a scrape gathers (for tests and benchmarks).
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// ListenAddr is the second listener's address once it listens, else "".
func (m *Metrics) ListenAddr() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.addr
}
