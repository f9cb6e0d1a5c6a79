package dbversion_test

import (
	"context"
	"database/sql"
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

func version(t testing.TB, w *dbversion.Watcher) int64 {
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
	w := dbversion.New(func() *sql.DB { return db })
	defer w.Close()

	v0 := version(t, w)
	if _, err := db.Query("SELECT * FROM t"); err != nil { // reads change nothing
		t.Fatal(err)
	}
	if v := version(t, w); v != v0 {
		t.Fatalf("version moved from %d to %d without a commit", v0, v)
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
		t.Fatalf("a rolled-back write moved the version from %d to %d", v2, v)
	}
}

func TestWatcherReconnectsAfterClose(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "data.db"))
	if _, err := db.Exec("CREATE TABLE t (v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	w := dbversion.New(func() *sql.DB { return db })
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
	if _, err := dbversion.New(func() *sql.DB { return closed }).Version(context.Background()); err == nil {
		t.Fatal("a closed database gave a version")
	}
}

func TestCacheServesOnlyTheVersionItWasFilledAt(t *testing.T) {
	c := dbversion.NewCache[string, int](2)
	if _, ok := c.Get(1, "a"); ok {
		t.Fatal("an empty cache hit")
	}
	c.Put(1, "a", 10)
	if v, ok := c.Get(1, "a"); !ok || v != 10 {
		t.Fatalf("Get(1, a) = %d, %v; want 10, true", v, ok)
	}
	if _, ok := c.Get(2, "a"); ok {
		t.Fatal("a value was served at a later version")
	}
	c.Put(2, "b", 20)
	if _, ok := c.Get(2, "a"); ok {
		t.Fatal("a value of version 1 survived a put at version 2")
	}
	c.Put(2, "c", 30)
	c.Put(2, "d", 40) // over the limit of 2: starts afresh
	if _, ok := c.Get(2, "b"); ok {
		t.Fatal("the cache grew past its limit")
	}
	if v, ok := c.Get(2, "d"); !ok || v != 40 {
		t.Fatalf("Get(2, d) = %d, %v; want 40, true", v, ok)
	}
}

func BenchmarkVersion(b *testing.B) {
	db := openDB(b, filepath.Join(b.TempDir(), "data.db"))
	w := dbversion.New(func() *sql.DB { return db })
	defer w.Close()
	for b.Loop() {
		version(b, w)
	}
}
