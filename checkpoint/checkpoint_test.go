package checkpoint_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/checkpoint"
	"github.com/pocketbase/dbx"
	_ "modernc.org/sqlite"
)

// open opens a database as the service opens data.db: WAL, no automatic
// checkpoints (a short busy timeout, so that a refused TRUNCATE is quick).
func open(t *testing.T, path string) *dbx.DB {
	t.Helper()
	db, err := dbx.Open("sqlite", path+"?_pragma=busy_timeout(200)&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)&_pragma=synchronous(NORMAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.NewQuery("CREATE TABLE IF NOT EXISTS t (v BLOB)").Execute(); err != nil {
		t.Fatal(err)
	}
	return db
}

// write commits n transactions of about 256 KB each.
func write(t *testing.T, db *dbx.DB, n int) {
	t.Helper()
	for range n {
		if _, err := db.NewQuery("WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 64) INSERT INTO t (v) SELECT randomblob(4096) FROM s").Execute(); err != nil {
			t.Fatal(err)
		}
	}
}

func walSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestLogStaysShort: with automatic checkpoints off, 40 commits of 256 KB
// grow the log past 10 MB; with the checkpointer beside the writer, each
// complete passive checkpoint lets the next commit start the log over, so
// it stays within a few commits' size.
func TestLogStaysShort(t *testing.T) {
	dir := t.TempDir()
	alone := filepath.Join(dir, "alone.db")
	write(t, open(t, alone), 40)
	if size := walSize(t, alone); size < 10<<20 {
		t.Fatalf("without checkpoints the log is %d bytes; want over 10 MB (is wal_autocheckpoint off?)", size)
	}

	path := filepath.Join(dir, "data.db")
	db := open(t, path)
	c := checkpoint.Start(db, path, checkpoint.Options{Interval: 5 * time.Millisecond})
	for range 40 {
		write(t, db, 1)
		// a writer's pause, long enough for the checkpointer's turn however
		// slow the machine: until it has copied the commit
		for deadline := time.Now().Add(10 * time.Second); !c.CaughtUp(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the checkpointer did not copy a commit within 10 s")
			}
		}
	}
	c.Stop()
	if size, s := walSize(t, path), c.Stats(); size > 4<<20 || s.Passive == 0 || s.Truncate != 0 {
		t.Errorf("with the checkpointer: log %d bytes, %+v; want at most 4 MB, passive checkpoints only", size, s)
	}
}

// TestBoundEmptiesTheLog: a reader that stays in the log keeps passive
// checkpoints from letting it start over; past the bound the checkpointer
// empties it with a TRUNCATE checkpoint, which waits for that reader
// (reported as a failure while it stays) and succeeds once it has left.
func TestBoundEmptiesTheLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	db := open(t, path)
	write(t, db, 1)
	reader, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.NewQuery("SELECT COUNT(*) FROM t").Row(&n); err != nil { // the read transaction starts here
		t.Fatal(err)
	}
	write(t, db, 12) // 3 MB: past the bound
	var mu sync.Mutex
	var failures []string
	c := checkpoint.Start(db, path, checkpoint.Options{Interval: 20 * time.Millisecond, Bound: 2 << 20,
		OnError: func(mode string, err error) {
			mu.Lock()
			defer mu.Unlock()
			failures = append(failures, mode+": "+err.Error())
		}})
	defer c.Stop()
	deadline := time.Now().Add(5 * time.Second)
	for c.Stats().Truncate == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	held := len(failures) > 0 && strings.HasPrefix(failures[0], "TRUNCATE")
	mu.Unlock()
	if !held || walSize(t, path) < 2<<20 {
		t.Fatalf("while a reader holds the log: failures %v, log %d bytes; want a refused TRUNCATE and the log kept", failures, walSize(t, path))
	}
	_ = reader.Rollback()
	for walSize(t, path) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if size := walSize(t, path); size != 0 {
		t.Errorf("once the reader left: log %d bytes, %+v; want 0 after a TRUNCATE checkpoint", size, c.Stats())
	}
}

// TestCheckpointMode: only PASSIVE and TRUNCATE are run.
func TestCheckpointMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	c := checkpoint.Start(open(t, path), path, checkpoint.Options{Interval: time.Hour})
	defer c.Stop()
	if err := c.Checkpoint(context.Background(), "FULL; DROP TABLE t"); err == nil {
		t.Error("a mode other than PASSIVE or TRUNCATE was run")
	}
}

// TestIdleNotCounted: a passive checkpoint that finds no new frames in the
// WAL had nothing to do and is not counted; the next write is.
func TestIdleNotCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	db := open(t, path)
	write(t, db, 1)
	c := checkpoint.Start(db, path, checkpoint.Options{Interval: 5 * time.Millisecond})
	defer c.Stop()
	time.Sleep(200 * time.Millisecond) // about 40 ticks
	if s := c.Stats(); s.Passive != 1 {
		t.Errorf("one write then idle: %+v, want 1 passive checkpoint", s)
	}
	write(t, db, 1)
	deadline := time.Now().Add(5 * time.Second)
	for c.Stats().Passive < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if s := c.Stats(); s.Passive != 2 {
		t.Errorf("after another write: %+v, want 2", s)
	}
}
