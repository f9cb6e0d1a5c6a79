package schema

// Operators' metrics (migrations/1795276800_decision_counts.go and
// 1795276900_decision_counts_by_set.go, opsmetrics/).
const (
	// DecisionCountsTable counts decisions by who made them (decidedBy:
	// "reviewer" or "policy"), kept by the set of decisions that makes them,
	// in its transaction.
	DecisionCountsTable = "_enrichment_decision_counts"
	// DecisionCountsTrigger counted a revision that left pending for
	// accepted or rejected, until the sets of decisions counted themselves
	// (1795276900 drops it).
	DecisionCountsTrigger = "enrichment_decision_counts"
	// IdxMetricCountsAll holds each organization's all-time counter rows
	// with their pending count (partial: span = 'all'), so the pending
	// gauges read one row per API client.
	IdxMetricCountsAll = "idx_enrichment_metric_counts_all"
)
