package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// An import run without a server ends without copying its log into the
// database (that copy was a fifth of the command's time at 100k
// products): it leaves the log, synced, and the next server reads the
// products from it at once and copies it in the background.
func TestImportLeavesItsLogToTheServer(t *testing.T) {
	dir := t.TempDir()
	org, key := newOrgWithKey(t, dir, "Acme")
	cat := importCrashCatalog(t, dir, org)

	size := func(name string) int64 {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	logged, stored := size("data.db-wal"), size("data.db")
	if logged < 1<<20 || stored > logged/4 {
		t.Fatalf("after the import: data.db %d bytes, its log %d; want the import's pages left in the log", stored, logged)
	}

	srv := startServe(t, dir)
	var page struct {
		TotalElements int `json:"totalElements"`
	}
	if err := json.Unmarshal(mustGet(t, srv.base+"/api/enrichment/products?pageSize=1", key, 200), &page); err != nil {
		t.Fatal(err)
	}
	if page.TotalElements != cat.activeCount {
		t.Errorf("the server exports %d products, want the import's %d active ones", page.TotalElements, cat.activeCount)
	}
	deadline := time.Now().Add(15 * time.Second)
	for size("data.db") < logged/2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := size("data.db"); got < logged/2 {
		t.Errorf("15 s after the server started, data.db holds %d bytes of a %d-byte log: its checkpointer did not copy it", got, logged)
	}
	srv.stop()
}
