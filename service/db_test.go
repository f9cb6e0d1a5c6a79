package service

import (
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
