package catalog

import (
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// tables runs the catalog file's own SQL, which nothing but the import and
// the export needs, on one app or transaction (import_queries.go,
// product_writer.go, catalog_reader.go). What the rest of the service reads
// or writes too (accepted values, the changes feed, generations) stays in
// the store.
//
// The import writes with raw SQL: no hooks, no per-record validation, so it
// sets every column itself (id, created, updated included). Use it on the
// import's transaction.
type tables struct {
	app core.App
}

// db is the builder for the queries: the open transaction, or the app's pools.
func (s *tables) db() dbx.Builder {
	return s.app.DB()
}
