package schema

// The gaps index (migrations/1795277000_gaps.go): one row per active
// product with at least one gap, kept by the service in the transactions
// that write products, so the gaps list seeks instead of scanning.
const (
	// GapsTable holds, per active product with a gap, its organization,
	// template, brand and categories (the list's filters), its most
	// important gap's rank (class, priority, name: the list's order), its
	// completeness and its gaps (JSON, most important first).
	GapsTable = "_enrichment_gaps"
	// IdxGapsOrder is an organization's rows in the list's order, with
	// completeness (the overview's mean reads the index alone).
	IdxGapsOrder = "idx_enrichment_gaps_order"
	// GapsDeleteTrigger forgets a deleted product's row.
	GapsDeleteTrigger = "enrichment_gaps_product_delete"
)
