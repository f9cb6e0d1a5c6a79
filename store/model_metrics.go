package store

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// ModelFilter narrows the acceptance metrics to the proposals of one model
// (Name), one version (Version), or both; zero counts every proposal.
type ModelFilter struct {
	Name, Version string
}

func (f ModelFilter) active() bool { return f.Name != "" || f.Version != "" }

// counterSQL is the filter's condition on the model counters, its values
// bound in params; "" for none.
func (f ModelFilter) counterSQL(params dbx.Params) string {
	sql := ""
	if f.Name != "" {
		params["modelName"] = f.Name
		sql += " AND [[model]] = {:modelName}"
	}
	if f.Version != "" {
		params["modelVersion"] = f.Version
		sql += " AND [[version]] = {:modelVersion}"
	}
	return sql
}

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

// rangeSQL is the WHERE clause of a client's counter rows in bucket range
// number i, its values bound in params (which hold org and client).
func rangeSQL(i int, r bucketRange, params dbx.Params) string {
	n := strconv.Itoa(i)
	params["span"+n] = r.span
	sql := " WHERE [[organization]] = {:org} AND [[client]] = {:client} AND [[span]] = {:span" + n + "}"
	if r.span != spanAll {
		params["from"+n], params["to"+n] = FormatTime(r.from), FormatTime(r.to)
		sql += " AND [[start]] >= {:from" + n + "} AND [[start]] < {:to" + n + "}"
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

// byModel lists the model versions (within f) with a revision of client
// reviewed in w: from the model counters of w's whole buckets and from the
// revisions at its edges, as countWindow does.
func (s *Store) byModel(org enrichment.Org, client int64, w Window, f ModelFilter) ([]enrichment.ModelMetrics, error) {
	ranges, edges := windowPlan(w)
	var counts []modelCount
	for _, e := range edges {
		found, err := s.indexedByModel(org, client, e, f)
		if err != nil {
			return nil, err
		}
		counts = append(counts, found...)
	}
	if len(ranges) > 0 {
		params := dbx.Params{"org": string(org), "client": FormatID(client)}
		filter := f.counterSQL(params)
		parts := make([]string, len(ranges))
		for i, r := range ranges {
			parts[i] = "SELECT [[model]], [[version]], [[accepted]], [[rejected]] FROM " + schema.ModelCountsTable + rangeSQL(i, r, params) + filter
		}
		var rows []struct {
			Name     string `db:"name"`
			Version  string `db:"version"`
			Accepted int    `db:"accepted"`
			Rejected int    `db:"rejected"`
		}
		err := s.db().NewQuery("SELECT [[model]] AS [[name]], [[version]], SUM([[accepted]]) AS [[accepted]], SUM([[rejected]]) AS [[rejected]] FROM (" +
			strings.Join(parts, " UNION ALL ") + ") GROUP BY [[model]], [[version]]").Bind(params).All(&rows)
		if err != nil {
			return nil, fmt.Errorf("read model counters: %w", err)
		}
		for _, r := range rows {
			counts = append(counts, modelCount{r.Name, r.Version, enrichment.StatusAccepted, r.Accepted},
				modelCount{r.Name, r.Version, enrichment.StatusRejected, r.Rejected})
		}
	}
	return modelMetrics(counts), nil
}

// indexedByModel counts client's decided revisions within w by model,
// version and status from the revisions (the edges of a window), from the
// entries of the index of decided revisions with a model
// (migrations/1795274300_model_counts.go): every band and reason value is
// listed, so the window is a range seek on reviewedAt per group.
func (s *Store) indexedByModel(org enrichment.Org, client int64, w Window, f ModelFilter) ([]modelCount, error) {
	params := dbx.Params{"org": string(org), "client": FormatID(client)}
	where := []string{"[[organization]] = {:org}", "[[apiClient]] = {:client}", "[[status]] IN ('accepted', 'rejected')",
		"[[confidenceBand]] IN " + listParams(params, "band", append([]string{""}, enrichment.ConfidenceBands...)),
		"[[reason]] IN " + listParams(params, "reason", append([]string{""}, enrichment.Reasons...)),
		f.revisionSQL(params) + "json_type([[model]]) = 'object'"}
	if !w.Since.IsZero() {
		params["since"] = FormatTime(w.Since)
		where = append(where, "[[reviewedAt]] > {:since}")
	}
	if !w.Until.IsZero() {
		params["until"] = FormatTime(w.Until)
		where = append(where, "[[reviewedAt]] < {:until}")
	}
	var out []modelCount
	err := s.db().NewQuery("SELECT [[model]] ->> '$.name' AS [[name]], [[model]] ->> '$.version' AS [[version]], [[status]], COUNT(*) AS [[n]]" +
		" FROM {{revisions}} WHERE " + strings.Join(where, " AND ") + " GROUP BY 1, 2, 3").Bind(params).All(&out)
	if err != nil {
		return nil, fmt.Errorf("count decided revisions by model: %w", err)
	}
	return out, nil
}

// listParams binds values as prefix0, prefix1, ... and is the SQL list of
// their placeholders.
func listParams(params dbx.Params, prefix string, values []string) string {
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = "{:" + prefix + strconv.Itoa(i) + "}"
		params[prefix+strconv.Itoa(i)] = v
	}
	return "(" + strings.Join(names, ", ") + ")"
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
