package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// A statement that changes many rows inside a transaction keeps its
// statement journal in memory (stmtJournalSpill): no temporary file is
// opened for it, where SQLite's own 64 KiB spill size opened one for this
// journal of about 1 MB. Linux only: the open files are read from
// /proc.
func TestStmtJournalInMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	db, err := dbConnect(filepath.Join(t.TempDir(), "data.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// 500 rows of 2 KB: their pages, journaled, are about 1 MB
	_, err = db.NewQuery(`CREATE TABLE revisions (status TEXT NOT NULL, proposed TEXT NOT NULL);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
		INSERT INTO revisions SELECT 'pending', hex(randomblob(1000)) FROM n`).Execute()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.DB().BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// a first write, so that the next statement runs in an open write
	// transaction, as a batch's update of its superseded revisions does
	if _, err := tx.Exec(`UPDATE revisions SET status = 'first' WHERE rowid = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE revisions SET status = 'superseded' WHERE rowid IN (SELECT rowid FROM revisions)`); err != nil {
		t.Fatal(err)
	}
	if open := deletedOpenFiles(t); len(open) > 0 {
		t.Errorf("the statement journal went to a temporary file: %v", open)
	}
}

// deletedOpenFiles lists the process's open files that were deleted, as
// SQLite's temporary files are: it deletes one as soon as it opens it.
func deletedOpenFiles(t *testing.T) []string {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err == nil && strings.HasSuffix(target, " (deleted)") {
			out = append(out, target)
		}
	}
	return out
}

// Pages that SQLite's caches hold come from the process's buffer
// (pageCacheSlots), not from allocations of their own: after a write and a
// read, slots of it are in use and no page overflowed it.
func TestPageCacheBuffer(t *testing.T) {
	db, err := dbConnect(filepath.Join(t.TempDir(), "data.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.NewQuery(`CREATE TABLE products (description TEXT NOT NULL);
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
		INSERT INTO products SELECT hex(randomblob(1000)) FROM n`).Execute()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.NewQuery("SELECT COUNT(*) FROM products WHERE length(description) = 2000").Row(&n); err != nil || n != 500 {
		t.Fatalf("read back %d rows, %v", n, err)
	}
	used, overflow := pageCacheStatus(t)
	if used == 0 || overflow != 0 {
		t.Errorf("page cache slots in use %d, bytes allocated outside the buffer %d; want some and none", used, overflow)
	}
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
