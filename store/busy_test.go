package store_test

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/catalog-enrichment/enrichment/store"
	_ "modernc.org/sqlite"
)

// Busy knows SQLite's "database is locked" from a real lock, and nothing
// else for it.
func TestBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.db")
	open := func() *sql.DB {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(50)")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	holder, writer := open(), open()
	if _, err := holder.Exec("CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	_, err = writer.Exec("INSERT INTO t VALUES (2)")
	if err == nil || !store.Busy(err) || !store.Busy(fmt.Errorf("wrapped: %w", err)) {
		t.Errorf("a write while another holds the lock: %v, busy %v", err, store.Busy(err))
	}
	_, other := writer.Exec("INSERT INTO nowhere VALUES (1)")
	for _, e := range []error{other, errors.New("database is locked"), nil} {
		if store.Busy(e) {
			t.Errorf("%v taken for busy", e)
		}
	}
}
