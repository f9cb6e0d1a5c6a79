// Package sqlparts holds the pieces of hand-written SQL that the packages
// querying the database directly (store, and catalog's import and export)
// share: IN lists bound as one parameter, the organization scope of an id
// lookup, and record ids as the schema stores them.
package sqlparts

import (
	"encoding/json/v2"
	"strconv"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/dbx"
)

// ByIDsOf scopes an id lookup to org as +organization, which SQLite cannot
// serve from an index: the lookup then always goes by primary key, even
// with stale statistics (a server's connections keep the ones they read
// before an import ran ANALYZE) that would favour scanning the organization.
func ByIDsOf(org enrichment.Org) dbx.Expression {
	return dbx.NewExp("+[[organization]] = {:org}", dbx.Params{"org": string(org)})
}

// InList is the SQL of `column IN (values)` with the values bound as one
// JSON array parameter named param, read back with json_each: one bound
// parameter instead of one per value, as the driver's binding grows faster
// than the values (a lookup of 50 SKUs spent a third of its time there).
// Bind InValues(values) as param.
func InList(column, param string) string {
	return "[[" + column + "]] IN (SELECT [[value]] FROM json_each({:" + param + "}))"
}

// InValues encodes the values of an InList parameter.
func InValues[T ~string | ~int64](values []T) string {
	b, _ := json.Marshal(values) // note: strings and integers always encode
	return string(b)
}

// In is InList as a builder expression.
func In(column string, values []string) dbx.Expression {
	return dbx.NewExp(InList(column, column+"In"), dbx.Params{column + "In": InValues(values)})
}

// StoredID reads a numeric record id from the service's own rows, where the
// schema guarantees the format (enrichment.ParseID reads ids from outside).
func StoredID(id string) int64 {
	n, _ := strconv.ParseInt(id, 10, 64)
	return n
}

// FormatIDs renders numeric ids as the record ids they are stored as, for
// an IN list over a text id column.
func FormatIDs(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatInt(id, 10)
	}
	return out
}
