package schema

// Operators' metrics (migrations/1795276800_decision_counts.go,
// opsmetrics/).
const (
	// DecisionCountsTable counts decisions by who made them (decidedBy:
	// "reviewer" or "policy"), kept by DecisionCountsTrigger in the
	// transaction of each decision.
	DecisionCountsTable = "_enrichment_decision_counts"
	// DecisionCountsTrigger counts a revision that leaves pending for
	// accepted or rejected.
	DecisionCountsTrigger = "enrichment_decision_counts"
	// IdxMetricCountsAll holds each organization's all-time counter rows
	// with their pending count (partial: span = 'all'), so the pending
	// gauges read one row per API client.
	IdxMetricCountsAll = "idx_enrichment_metric_counts_all"
)
