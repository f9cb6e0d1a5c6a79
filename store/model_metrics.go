package store

import (
	"cmp"
	"slices"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/dbx"
)

// ModelFilter narrows the acceptance metrics to the proposals of one model
// (Name), one version (Version), or both; zero counts every proposal.
type ModelFilter struct {
	Name, Version string
}

func (f ModelFilter) active() bool { return f.Name != "" || f.Version != "" }

// revisionSQL is the filter's condition on revisions, followed by AND;
// "" for none.
func (f ModelFilter) revisionSQL(params dbx.Params) string {
	sql := ""
	if f.Name != "" {
		params["modelName"] = f.Name
		sql += "([[model]] ->> '$.name') = {:modelName} AND "
	}
	if f.Version != "" {
		params["modelVersion"] = f.Version
		sql += "([[model]] ->> '$.version') = {:modelVersion} AND "
	}
	return sql
}

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
