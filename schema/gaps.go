package schema

// The gaps of each product (migrations/1795277000_gaps.go): products hold
// their completeness, their gaps (JSON, most important first) and the rank
// of their most important gap as text that sorts as the gaps list orders
// (gapRank, "" without a gap), kept by the service in the transactions
// that write products.
const (
	// IdxProductsGaps holds an organization's active products with a gap in
	// the gaps list's order, with their completeness (partial: active and
	// gapRank != ''), so the list seeks and the overview's mean reads the
	// index alone.
	IdxProductsGaps = "idx_products_gaps"
)

// The organizations' completeness per day
// (migrations/1795277300_completeness_history.go).
const (
	// CompletenessHistoryTable holds, per organization and day, the mean
	// completeness of its active products and their number.
	CompletenessHistoryTable = "_enrichment_completeness_history"
	// CompletenessHistoryOrgTrigger forgets an organization's history with it.
	CompletenessHistoryOrgTrigger = "enrichment_completeness_history_org_delete"
)
