package checkpoint

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/pocketbase/dbx"
)

const testDSN = "?_pragma=busy_timeout(200)&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)&_pragma=synchronous(NORMAL)"

// TestCloseLeavesTheLog: SQLite's last connection to close copies the log
// into the database and deletes it; through Connector it leaves the log,
// which the next opener reads (nothing lost).
func TestCloseLeavesTheLog(t *testing.T) {
	for _, c := range []struct {
		name     string
		open     func(dsn string) (*sql.DB, error)
		wantsLog bool
	}{
		{"the driver's own", func(dsn string) (*sql.DB, error) { return sql.Open("sqlite", dsn) }, false},
		{"Connector", func(dsn string) (*sql.DB, error) {
			connector, err := Connector(dsn)
			if err != nil {
				return nil, err
			}
			return sql.OpenDB(connector), nil
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data.db")
			db, err := c.open(path + testDSN)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"CREATE TABLE t (v BLOB)", "INSERT INTO t (v) SELECT randomblob(4096) FROM (WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 256) SELECT i FROM s)"} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path + "-wal")
			if hasLog := err == nil && fi.Size() > 1<<20; hasLog != c.wantsLog {
				t.Fatalf("after close: log of more than 1 MB %v (%v), want %v", hasLog, err, c.wantsLog)
			}
			if err := syncLog(path + "-wal"); err != nil {
				t.Fatal(err)
			}
			again, err := sql.Open("sqlite", path+testDSN)
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			var rows int
			if err := again.QueryRow("SELECT count(*) FROM t").Scan(&rows); err != nil || rows != 256 {
				t.Fatalf("reopened: %d rows (%v), want 256", rows, err)
			}
		})
	}
}

// TestBoundLogAtClose: a process ends leaving its log to the next
// server's checkpointer only while the log is within the bound; past it
// the log is emptied into the database first.
func TestBoundLogAtClose(t *testing.T) {
	for _, c := range []struct {
		name      string
		bound     int64
		wantEmpty bool
	}{
		{"within the bound", 8 << 20, false},
		{"past the bound", 512 << 10, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data.db")
			connector, err := Connector(path + testDSN)
			if err != nil {
				t.Fatal(err)
			}
			db := dbx.NewFromDB(sql.OpenDB(connector), "sqlite")
			defer db.Close()
			for _, q := range []string{"CREATE TABLE t (v BLOB)", "INSERT INTO t (v) SELECT randomblob(4096) FROM (WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 256) SELECT i FROM s)"} {
				if _, err := db.NewQuery(q).Execute(); err != nil {
					t.Fatal(err)
				}
			}
			if err := boundLog(db, path+"-wal", c.bound); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path + "-wal")
			if err != nil {
				t.Fatal(err)
			}
			if empty := fi.Size() == 0; empty != c.wantEmpty {
				t.Errorf("log of %d bytes after boundLog(%d); want emptied %v", fi.Size(), c.bound, c.wantEmpty)
			}
		})
	}
}
