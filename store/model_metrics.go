package store

import (
	"cmp"
	"slices"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// ModelFilter narrows the acceptance metrics to the proposals of one model
// (Name), one version (Version), or both; zero counts every proposal.
type ModelFilter struct {
	Name, Version string
}

func (f ModelFilter) active() bool { return f.Name != "" || f.Version != "" }

// modelCount is the decided revisions of one model version and status.
type modelCount struct {
	Name    string `db:"name"`
	Version string `db:"version"`
	Status  string `db:"status"`
	N       int    `db:"n"`
}

// modelMetrics adds counts up per model version, leaving out versions with
// nothing reviewed, ordered by name then version.
func modelMetrics(counts []modelCount) []enrichment.ModelMetrics {
	type key struct{ name, version string }
	sums := map[key]*enrichment.ModelMetrics{}
	for _, c := range counts {
		k := key{c.Name, c.Version}
		m := sums[k]
		if m == nil {
			m = &enrichment.ModelMetrics{Name: c.Name, Version: c.Version}
			sums[k] = m
		}
		m.Reviewed += c.N
		if c.Status == enrichment.StatusAccepted {
			m.Accepted += c.N
		}
	}
	out := []enrichment.ModelMetrics{}
	for _, m := range sums {
		if m.Reviewed > 0 {
			m.AcceptanceRate = enrichment.Rate(m.Accepted, m.Reviewed)
			out = append(out, *m)
		}
	}
	slices.SortFunc(out, func(a, b enrichment.ModelMetrics) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Version, b.Version))
	})
	return out
}
