package store

import (
	"cmp"
	"slices"

	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
)

// Helpers for the hand-written SQL of the store's queries.

// identified is a row that carries its record id.
type identified interface{ recordID() string }

// sortByID sorts rows by numeric id. Queries sort in Go where no index
// gives the order: SQLite's sorter copies every selected column, large
// JSON ones included, and did so for a third of a SKU lookup's time.
func sortByID[R identified](rows []R) {
	slices.SortFunc(rows, func(a, b R) int { return cmp.Compare(sqlparts.StoredID(a.recordID()), sqlparts.StoredID(b.recordID())) })
}

// sortInOrder sorts rows into the order of keys, key naming each row's: a
// query by a list of keys answers in an order of its own.
func sortInOrder[R any, K comparable](rows []R, keys []K, key func(R) K) {
	at := make(map[K]int, len(keys))
	for i, k := range keys {
		at[k] = i
	}
	slices.SortFunc(rows, func(a, b R) int { return at[key(a)] - at[key(b)] })
}

// unique sorts ids and drops repeats.
func unique[T cmp.Ordered](ids []T) []T {
	slices.Sort(ids)
	return slices.Compact(ids)
}
