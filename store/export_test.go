package store

import "github.com/catalog-enrichment/enrichment/enrichment"

// IndexedMetrics counts client's revisions within w (of f's model) from
// the revisions alone, with no counter: what the counters must agree with.
func (s *Store) IndexedMetrics(org enrichment.Org, client int64, w Window, f ModelFilter) (enrichment.AcceptanceMetrics, error) {
	m := enrichment.NewAcceptanceMetrics()
	counts, err := s.addIndexed(org, client, w, f, &m)
	if err != nil {
		return m, err
	}
	m.ByModel = modelMetrics(counts)
	m.Finish()
	return m, nil
}

// CounterColumnNames are the metric counters' columns as the store writes them.
func CounterColumnNames() []string { return counterNames("") }
