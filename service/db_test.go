package service

import (
	"path/filepath"
	"testing"
)

// While data.db is replicated only Litestream checkpoints it; auxiliary.db,
// and data.db otherwise, keep SQLite's automatic checkpoints. Every
// connection keeps its temporary store in files (1), so that a sort of the
// records API over a whole catalog never holds its rows in the server's
// own memory.
func TestDBConnectCheckpoints(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		replicated bool
		file       string
		want       int
	}{
		{false, "data.db", 1000},
		{false, "auxiliary.db", 1000},
		{true, "data.db", 0},
		{true, "auxiliary.db", 1000},
	} {
		db, err := dbConnect(c.replicated)(filepath.Join(dir, c.file))
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
			t.Errorf("%s, replicated %v: wal_autocheckpoint %d, mmap_size %d, temp_store %d; want %d and the usual pragmas (temp_store 1, FILE)",
				c.file, c.replicated, pages, mmap, temp, c.want)
		}
	}
}
