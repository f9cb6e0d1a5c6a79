package store

import "github.com/catalog-enrichment/enrichment/enrichment"

// IndexedMetrics counts client's revisions within w (of f's model) from
// the revisions alone, with no counter: what the counters must agree with.
func (s *Metrics) IndexedMetrics(org enrichment.Org, client int64, w Window, f ModelFilter) (enrichment.AcceptanceMetrics, error) {
	m := enrichment.NewAcceptanceMetrics()
	counts, err := s.addEdges(org, client, []Window{w}, f, &m)
	if err != nil {
		return m, err
	}
	m.ByModel = modelMetrics(counts)
	m.Finish()
	return m, nil
}

// CounterColumnNames are the metric counters' columns as the store writes them.
func CounterColumnNames() []string { return counterNames("") }

// MetricsStatements are the statements of a metrics window: over the
// counters, then over the edges (unfiltered, filtered); and how many
// bucket ranges and edge windows each reads.
func MetricsStatements() (counters, edges []string, ranges, edgeWindows int) {
	return []string{clientCountersSQL, modelDecisionsSQL, modelCountersSQL}, edgeStatements[:], maxRanges, maxEdges
}

// PendingBefore is the read of a batch's pending revisions before its
// write transaction (pendingBefore).
func (s *Proposals) PendingBefore(org enrichment.Org, client int64, products []string) (*pendingSet, error) {
	return s.pendingBefore(org, client, products, true)
}

// PendingNow is that read brought up to date within the transaction
// (pendingProposals).
func (s *Proposals) PendingNow(p any) ([]*enrichment.ProposalState, error) {
	return s.pendingProposals(p.(*pendingSet), map[int64]modelKey{}, map[int64]int64{})
}
