package store

import "github.com/catalog-enrichment/enrichment/enrichment"

// IndexedMetrics counts client's revisions within w from the revisions'
// indexes alone, with no counter: what the counters must agree with.
func (s *Store) IndexedMetrics(org enrichment.Org, client int64, w Window) (enrichment.AcceptanceMetrics, error) {
	m := enrichment.NewAcceptanceMetrics()
	if err := s.addIndexed(org, client, w, &m); err != nil {
		return m, err
	}
	m.Finish()
	return m, nil
}

// CounterColumnNames are the metric counters' columns as the store writes them.
func CounterColumnNames() []string { return counterNames("") }
