package checkpoint

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
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

// The handle is where skipCheckpointOnClose looks for it: a connection of
// the driver takes the setting, anything else is refused, not guessed at.
func TestSkipCheckpointOnCloseFindsTheHandle(t *testing.T) {
	connector, err := Connector(filepath.Join(t.TempDir(), "data.db") + testDSN)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := connector.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := skipCheckpointOnClose(conn); err != nil {
		t.Errorf("a driver connection: %v", err)
	}
	var other struct{ db string }
	if err := skipCheckpointOnClose(&other); !errors.Is(err, errNoHandle) {
		t.Errorf("another type: %v, want errNoHandle", err)
	}
}
