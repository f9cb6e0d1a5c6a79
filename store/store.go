// Package store queries the database on behalf of the API, the hooks, the
// jobs and the command line; only the catalog file's import and export keep
// their own queries, in catalog/. Every function that touches tenant data
// takes the organization first, so a query cannot be written without it.
package store

import (
	"encoding/json/v2"
	"strconv"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Store runs the service's hand-written queries on one app (or
// transaction). Its queries are grouped by area (areas.go): st.Review(),
// st.Catalog() and so on.
type Store struct {
	base
}

// base is what every area of the store shares: the app it queries, and
// through it the database, transactions, the cache's generations and the
// after-commit step. Every area type embeds it.
type base struct {
	app core.App
}

// New returns a store on app; pass a transaction's app to stay inside it.
func New(app core.App) *Store {
	return &Store{base{app: app}}
}

// db is the builder for the store's queries: SELECTs go to the read pool,
// writes to the single writer, or everything to the open transaction.
func (s *base) db() dbx.Builder {
	return s.app.DB()
}

// Transaction runs fn on a store bound to one write transaction.
func (s *base) Transaction(fn func(tx *Store) error) error {
	return s.app.RunInTransaction(func(txApp core.App) error {
		return fn(New(txApp))
	})
}

// FormatTime renders t the way PocketBase stores dates, so stored dates and
// bound parameters compare correctly as text (millisecond precision, UTC).
func FormatTime(t time.Time) string {
	dt, _ := types.ParseDateTime(t.UTC())
	return dt.String()
}

// FormatID renders a numeric id as the record id it is stored as.
func FormatID(id int64) string {
	return strconv.FormatInt(id, 10)
}

// decodeStrings reads a JSON string array column; NULL or bad JSON is empty.
func decodeStrings(raw []byte) []string {
	var out []string
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &out)
	}
	if out == nil {
		out = []string{}
	}
	return out
}
