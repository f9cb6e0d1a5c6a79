package replica_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/replica"
	_ "modernc.org/sqlite"
)

// openDB opens a SQLite database in WAL mode the way the service opens
// data.db while it is replicated: Litestream alone checkpoints it.
func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// names returns the names in table t of the database at path.
func names(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name FROM t ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// waitReplicated waits until the replica has what was committed before the
// call: Litestream copied something newer out of the WAL and uploaded it,
// and the status says the replica lacks nothing.
func waitReplicated(t *testing.T, r *replica.Replicator, before replica.Status) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s := r.Status()
		if s.LocalTXID > before.LocalTXID && s.ReplicaTXID >= s.LocalTXID && s.LagSeconds == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("not replicated within 20 s: %+v", r.Status())
}

func TestReplicateAndRestore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.db")
	url := "file://" + filepath.Join(dir, "replica")
	db := openDB(t, path)
	mustExec(t, db, "CREATE TABLE t (name TEXT, filler BLOB)")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	r, err := replica.Start(context.Background(), path, url, quiet, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })

	status := r.Status()
	mustExec(t, db, "INSERT INTO t VALUES ('first', randomblob(10000))")
	waitReplicated(t, r, status)
	between := time.Now()
	status = r.Status()
	if status.Behind || status.LagSeconds != 0 || !status.Enabled || status.Replica != url {
		t.Errorf("status once replicated: %+v", status)
	}
	mustExec(t, db, "INSERT INTO t VALUES ('second', randomblob(10000))")
	waitReplicated(t, r, status)

	latest := filepath.Join(t.TempDir(), "latest.db")
	restored, err := replica.Restore(context.Background(), url, latest, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, latest); !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("latest state has %v", got)
	}
	if restored.Bytes < 20000 || restored.AsOf.Before(between) {
		t.Errorf("latest restore: %+v", restored)
	}

	then := filepath.Join(t.TempDir(), "then.db")
	restored, err = replica.Restore(context.Background(), url, then, between)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, then); !slices.Equal(got, []string{"first"}) {
		t.Errorf("state at %s has %v, want the first row only", between.Format(time.RFC3339Nano), got)
	}
	if !restored.AsOf.Equal(between) {
		t.Errorf("restore at %s says it restored the state of %s", between, restored.AsOf)
	}

	if _, err := replica.Restore(context.Background(), url, then, time.Time{}); err == nil {
		t.Error("a restore over an existing file succeeded")
	}
	if _, err := replica.Restore(context.Background(), url, filepath.Join(t.TempDir(), "early.db"), between.Add(-time.Hour)); err == nil {
		t.Error("a restore to a moment before the replica began succeeded")
	}
}

func TestRestoreFromNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "data.db")
	_, err := replica.Restore(context.Background(), "file://"+t.TempDir(), out, time.Time{})
	if !errors.Is(err, replica.ErrNoBackup) {
		t.Errorf("restore from an empty folder: %v, want ErrNoBackup", err)
	}
	if _, statErr := os.Stat(out); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("a failed restore left %s", out)
	}
}
