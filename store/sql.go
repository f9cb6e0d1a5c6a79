package store

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/dbx"
)

// Helpers for the hand-written SQL of the store's queries.

// byIDsOf scopes an id lookup to org as +organization, which SQLite cannot
// serve from an index: the lookup then always goes by primary key, even
// with stale statistics (a server's connections keep the ones they read
// before an import ran ANALYZE) that would favour scanning the organization.
func byIDsOf(org enrichment.Org) dbx.Expression {
	return dbx.NewExp("+[[organization]] = {:org}", dbx.Params{"org": string(org)})
}

// idStrings renders numeric ids as the record ids they are stored as.
func idStrings(ids []int64) []any {
	return anys(stringIDs(ids))
}

// stringIDs renders numeric ids as record ids.
func stringIDs(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = FormatID(id)
	}
	return out
}

// unique sorts ids and drops repeats.
func unique[T cmp.Ordered](ids []T) []T {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// placeholders renders n named parameters {:p0}, {:p1}, ... for an IN list.
func placeholders(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("{:" + prefix + strconv.Itoa(i) + "}")
	}
	return b.String()
}

// namedParams adds values to params as prefix0, prefix1, ...
func namedParams(params dbx.Params, prefix string, values []string) dbx.Params {
	for i, v := range values {
		params[prefix+strconv.Itoa(i)] = v
	}
	return params
}

func anys(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}
