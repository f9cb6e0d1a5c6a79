package service

import (
	"context"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/pocketbase/dbx"
	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// A statement that changes more rows inside a transaction than its
// statement journal keeps in memory (64 KiB) still works on the service's
// connections: its journal moves to a temporary file. note: the journal
// was once kept in memory up to 32 MiB (SQLITE_CONFIG_STMTJRNL_SPILL),
// and then any journal larger than that failed with "database or disk is
// full": SQLite copies the journal to the file in chunks of the spill size
// and writes at most 128 KiB - 1 at once (seekAndWriteFd masks the size
// with 0x1ffff), so a 32 MiB chunk was written as 0 bytes. A metrics
// recount of 1M revisions hit it.
func TestLargeStatementJournal(t *testing.T) {
	// 60,000 rows of 1 KB: their pages, journaled, are about 60 MB
	db := dataWithRevisions(t, 60_000, 500)
	tx, err := db.DB().BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// a first write, so that the next statement runs in an open write
	// transaction, as a recount's update of the decisions' masks does
	if _, err := tx.Exec(`UPDATE revisions SET status = 'rejected' WHERE rowid = 1`); err != nil {
		t.Fatal(err)
	}
	res, err := tx.Exec(`UPDATE revisions SET status = 'reverted' WHERE status = 'accepted'`)
	if err != nil {
		t.Fatalf("update 59,999 rows in a transaction: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 59_999 {
		t.Errorf("updated %d rows, want 59,999", n)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// Pages that SQLite's caches hold come from the process's buffer
// (pageCacheSlots), not from allocations of their own: after a write and a
// read, slots of it are in use and no page overflowed it.
func TestPageCacheBuffer(t *testing.T) {
	db := dataWithRevisions(t, 500, 1000)
	var n int
	if err := db.NewQuery("SELECT COUNT(*) FROM revisions WHERE length(proposed) = 2000").Row(&n); err != nil || n != 500 {
		t.Fatalf("read back %d rows, %v", n, err)
	}
	used, overflow := pageCacheStatus(t)
	if used == 0 || overflow != 0 {
		t.Errorf("page cache slots in use %d, bytes allocated outside the buffer %d; want some and none", used, overflow)
	}
}

// dataWithRevisions is a data.db opened as the service opens it, closed
// with t, with a table of rows revisions, each 'accepted' and with a
// proposal of size random bytes written in hex.
func dataWithRevisions(t *testing.T, rows, size int) *dbx.DB {
	t.Helper()
	db, err := dbConnect(filepath.Join(t.TempDir(), "data.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	_, err = db.NewQuery(`CREATE TABLE revisions (status TEXT NOT NULL, proposed TEXT NOT NULL);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {:rows})
		INSERT INTO revisions SELECT 'accepted', hex(randomblob({:size})) FROM n`).
		Bind(dbx.Params{"rows": rows, "size": size}).Execute()
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// pageCacheStatus reads sqlite3_status's SQLITE_STATUS_PAGECACHE_USED and
// _OVERFLOW.
func pageCacheStatus(t *testing.T) (used, overflow int32) {
	tls := libc.NewTLS()
	defer tls.Close()
	var high int32
	for _, s := range []struct {
		op  int32
		out *int32
	}{{sqlite3.SQLITE_STATUS_PAGECACHE_USED, &used}, {sqlite3.SQLITE_STATUS_PAGECACHE_OVERFLOW, &overflow}} {
		if rc := sqlite3.Xsqlite3_status(tls, s.op, uintptr(unsafe.Pointer(s.out)), uintptr(unsafe.Pointer(&high)), 0); rc != sqlite3.SQLITE_OK {
			t.Fatalf("sqlite3_status(%d): %d", s.op, rc)
		}
	}
	return used, overflow
}
