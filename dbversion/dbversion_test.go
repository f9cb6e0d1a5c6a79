package dbversion_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/catalog-enrichment/enrichment/dbversion"
	_ "modernc.org/sqlite"
)

// openDB opens the SQLite file at path in WAL mode as its own pool, as
// another process would.
func openDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func version(t testing.TB, w *dbversion.Watcher) dbversion.Version {
	t.Helper()
	v, err := w.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVersionChangesOnlyWhenAnotherConnectionCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	db := openDB(t, path)
	other := openDB(t, path) // another process's pool
	if _, err := db.Exec("CREATE TABLE t (v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	w := dbversion.New(func() *sql.DB { return db }, path)
	defer w.Close()

	v0 := version(t, w)
	if !w.Mapped() {
		t.Fatal("the WAL-index header of a WAL database was not mapped")
	}
	if _, err := db.Query("SELECT * FROM t"); err != nil { // reads change nothing
		t.Fatal(err)
	}
	if v := version(t, w); v != v0 {
		t.Fatalf("version moved from %v to %v without a commit", v0, v)
	}
	if _, err := db.Exec("INSERT INTO t VALUES (1)"); err != nil { // the same pool
		t.Fatal(err)
	}
	v1 := version(t, w)
	if v1 == v0 {
		t.Fatal("a commit through the same pool left the version unchanged")
	}
	if _, err := other.Exec("UPDATE t SET v = 2"); err != nil { // another process
		t.Fatal(err)
	}
	if v := version(t, w); v == v1 {
		t.Fatal("a commit from another pool left the version unchanged")
	}

	tx, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("UPDATE t SET v = 3"); err != nil {
		t.Fatal(err)
	}
	v2 := version(t, w)
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if v := version(t, w); v != v2 {
		t.Fatalf("a rolled-back write moved the version from %v to %v", v2, v)
	}
}

func TestWatcherReconnectsAfterClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	db := openDB(t, path)
	if _, err := db.Exec("CREATE TABLE t (v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	w := dbversion.New(func() *sql.DB { return db }, path)
	version(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	v0 := version(t, w)
	if _, err := db.Exec("INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if version(t, w) == v0 {
		t.Fatal("the reopened connection missed a commit")
	}
	w.Close()

	closed := openDB(t, filepath.Join(t.TempDir(), "data.db"))
	closed.Close()
	if _, err := dbversion.New(func() *sql.DB { return closed }, "").Version(context.Background()); err == nil {
		t.Fatal("a closed database gave a version")
	}
}

// Without a WAL there is no header to map: the pragma answers, as exactly.
func TestVersionWithoutWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other := openDB(t, path)
	if _, err := db.Exec("CREATE TABLE t (v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	w := dbversion.New(func() *sql.DB { return db }, path)
	defer w.Close()
	v0 := version(t, w)
	if w.Mapped() {
		t.Fatal("mapped a header without a WAL")
	}
	if v := version(t, w); v != v0 {
		t.Fatal("version moved without a commit")
	}
	if _, err := other.Exec("INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if version(t, w) == v0 {
		t.Fatal("a commit left the version unchanged")
	}
}

func BenchmarkVersion(b *testing.B) {
	path := filepath.Join(b.TempDir(), "data.db")
	db := openDB(b, path)
	if _, err := db.Exec("CREATE TABLE t (v INTEGER)"); err != nil {
		b.Fatal(err)
	}
	w := dbversion.New(func() *sql.DB { return db }, path)
	defer w.Close()
	version(b, w)
	if !w.Mapped() {
		b.Fatal("not mapped")
	}
	for b.Loop() {
		if _, err := w.Version(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// A database closed by every connection and opened again gets a new -shm
// file: a watcher then maps that one, not the descriptor the process kept
// of the old (which must stay open while SQLite uses it: closing any
// descriptor of a file drops the process's locks on it).
func TestWatcherFollowsANewSharedMemoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	first := openDB(t, path)
	if _, err := first.Exec("CREATE TABLE t (v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	w := dbversion.New(func() *sql.DB { return first }, path)
	version(t, w)
	w.Close()
	first.Close()
	if err := os.Remove(path + "-shm"); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	again := openDB(t, path)
	w = dbversion.New(func() *sql.DB { return again }, path)
	defer w.Close()
	v0 := version(t, w)
	if !w.Mapped() {
		t.Fatal("the new -shm file is not mapped")
	}
	if _, err := again.Exec("INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if version(t, w) == v0 {
		t.Fatal("a commit after the database was opened again did not change the version")
	}
}
