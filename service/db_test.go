package service

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// No commit to data.db checkpoints it (Litestream or the background
// checkpointer does); auxiliary.db keeps SQLite's automatic checkpoints. Every
// connection keeps its temporary store in files (1), so that a sort of the
// records API over a whole catalog never holds its rows in the server's
// own memory.
func TestDBConnectCheckpoints(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file string
		want int
	}{
		{"data.db", 0},
		{"auxiliary.db", 1000},
	} {
		db, err := dbConnect(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		var pages, mmap, temp int
		if err := db.NewQuery("PRAGMA wal_autocheckpoint").Row(&pages); err != nil {
			t.Fatal(err)
		}
		if err := db.NewQuery("PRAGMA mmap_size").Row(&mmap); err != nil {
			t.Fatal(err)
		}
		if err := db.NewQuery("PRAGMA temp_store").Row(&temp); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if pages != c.want || mmap != 1<<30 || temp != 1 {
			t.Errorf("%s: wal_autocheckpoint %d, mmap_size %d, temp_store %d; want %d and the usual pragmas (temp_store 1, FILE)",
				c.file, pages, mmap, temp, c.want)
		}
	}
}

// A data.db the service creates has dataPageSize pages, in WAL mode from
// its first write; auxiliary.db keeps SQLite's default, and a data.db made
// before (4 KiB pages) keeps its pages and its rows.
func TestDBConnectPageSize(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(t.TempDir(), "data.db")
	made, err := sql.Open("sqlite", old+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := made.Exec("CREATE TABLE kept (v TEXT); INSERT INTO kept VALUES ('earlier release')"); err != nil {
		t.Fatal(err)
	}
	made.Close()
	for _, c := range []struct {
		path string
		want int
	}{
		{filepath.Join(dir, "data.db"), dataPageSize},
		{filepath.Join(dir, "auxiliary.db"), 4096},
		{old, 4096},
	} {
		db, err := dbConnect(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.NewQuery("CREATE TABLE IF NOT EXISTS kept (v TEXT)").Execute(); err != nil {
			t.Fatal(err)
		}
		var size, rows int
		var mode string
		if err := db.NewQuery("PRAGMA page_size").Row(&size); err != nil {
			t.Fatal(err)
		}
		if err := db.NewQuery("PRAGMA journal_mode").Row(&mode); err != nil {
			t.Fatal(err)
		}
		if err := db.NewQuery("SELECT COUNT(*) FROM kept").Row(&rows); err != nil {
			t.Fatal(err)
		}
		db.Close()
		wantRows := 0
		if c.path == old {
			wantRows = 1
		}
		if size != c.want || mode != "wal" || rows != wantRows {
			t.Errorf("%s: page_size %d, journal_mode %s, %d rows kept; want %d, wal, %d", c.path, size, mode, rows, c.want, wantRows)
		}
	}
}
