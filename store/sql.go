package store

import (
	"cmp"
	"encoding/json/v2"
	"slices"

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

// stringIDs renders numeric ids as record ids.
func stringIDs(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = FormatID(id)
	}
	return out
}

// identified is a row that carries its record id.
type identified interface{ recordID() string }

// sortByID sorts rows by numeric id. Queries sort in Go where no index
// gives the order: SQLite's sorter copies every selected column, large
// JSON ones included, and did so for a third of a SKU lookup's time.
func sortByID[R identified](rows []R) {
	slices.SortFunc(rows, func(a, b R) int { return cmp.Compare(storedID(a.recordID()), storedID(b.recordID())) })
}

// unique sorts ids and drops repeats.
func unique[T cmp.Ordered](ids []T) []T {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// inList is the SQL of `column IN (values)` with the values bound as one
// JSON array parameter named param, read back with json_each: one bound
// parameter instead of one per value, as the driver's binding grows faster
// than the values (a lookup of 50 SKUs spent a third of its time there).
// Bind inValues(values) as param.
func inList(column, param string) string {
	return "[[" + column + "]] IN (SELECT [[value]] FROM json_each({:" + param + "}))"
}

// inValues encodes the values of an inList parameter.
func inValues[T ~string | ~int64](values []T) string {
	b, _ := json.Marshal(values) // note: strings and integers always encode
	return string(b)
}

// in is inList as a builder expression.
func in(column string, values []string) dbx.Expression {
	return dbx.NewExp(inList(column, column+"In"), dbx.Params{column + "In": inValues(values)})
}
