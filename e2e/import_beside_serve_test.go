package e2e

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
)

// TestImportBesideServe imports a catalog again and again on the command
// line while a server serves the same folder and two vendors submit: every
// import lands and the server answers every request. Before, an import
// that read before it wrote was refused ("database is locked (517)") when
// the server committed in between, and the server's own requests failed
// with "disk I/O error (8714)": the process had dropped SQLite's locks on
// the -shm file by closing a descriptor of it (dbversion), so each command
// that opened the folder took the file for abandoned and cleared it.
func TestImportBesideServe(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, seed := range []uint64{31, 32} {
		var buf bytes.Buffer
		if err := gen.Write(&buf, gen.Options{Products: 400, Templates: 2, Brands: 3, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		var c catalogFile
		if err := json.Unmarshal(buf.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		files = append(files, c.write(t, fmt.Sprintf("feed%d.json", i)))
	}
	var org struct{ ID int64 }
	cliJSON(t, dir, &org, "org", "create", "--name", "Beside", "--json")
	orgID := fmt.Sprint(org.ID)
	cli(t, dir, "import", "--org", orgID, files[0])
	var keys []string
	for range 2 {
		var key struct{ Key string }
		cliJSON(t, dir, &key, "apikey", "create", "--org", orgID, "--scopes", "catalog:read,catalog:submit", "--rate-limit", "0", "--json")
		keys = append(keys, key.Key)
	}
	srv := startServe(t, dir)
	defer srv.stop()
	api := srv.base + "/api/enrichment"
	var skus []string
	var page struct{ Items []struct{ SKU string } }
	if err := json.Unmarshal(mustGet(t, api+"/products?pageSize=100", keys[0], http.StatusOK), &page); err != nil {
		t.Fatal(err)
	}
	for _, p := range page.Items {
		skus = append(skus, p.SKU)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	var failed []string
	for v, key := range keys {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				var items []string
				for i := range 20 {
					items = append(items, fmt.Sprintf(`{"sku": %q, "name": "Vendor %d, batch %d"}`, skus[(n*20+i)%len(skus)], v, n))
				}
				a := send(http.MethodPost, api+"/products/submissions", key, []byte(`{"items": [`+strings.Join(items, ",")+`]}`))
				mu.Lock()
				statuses[a.status]++
				if a.status != http.StatusOK {
					failed = append(failed, fmt.Sprintf("%d %s", a.status, a.body))
				}
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	imports := 0
	for i := range 8 {
		if _, errOut, err := cliResult(dir, "import", "--org", orgID, files[(i+1)%2], "--deactivate-missing"); err != nil {
			t.Errorf("import %d beside the server: %v\n%s", i+1, err, errOut)
		}
		imports++
	}
	close(stop)
	wg.Wait()
	t.Logf("%d imports; submissions answered %v", imports, statuses)
	if len(failed) > 0 || statuses[http.StatusOK] == 0 {
		t.Errorf("submissions beside the imports: %v, for instance %s", statuses, strings.Join(failed[:min(len(failed), 3)], "; "))
	}
	if out := srv.output(); strings.Contains(out, "8714") || strings.Contains(out, "database is locked") {
		t.Errorf("the server's output: %s", tail(out))
	}
}

// TestWritesWaitForTheLock: a write that finds the database's write lock
// held by another process (a long import, here a plain transaction) waits
// for it and then succeeds, rather than failing when SQLite's busy timeout
// ends: PocketBase tries such a write again, for about two minutes.
func TestWritesWaitForTheLock(t *testing.T) {
	dir := t.TempDir()
	var org struct{ ID int64 }
	cliJSON(t, dir, &org, "org", "create", "--name", "Busy", "--json")
	cli(t, dir, "import", "--org", fmt.Sprint(org.ID), filepath.Join("..", "catalog", "testdata", "good.json"))
	var key struct{ Key string }
	cliJSON(t, dir, &key, "apikey", "create", "--org", fmt.Sprint(org.ID), "--scopes", "catalog:read,catalog:submit", "--json")
	srv := startServe(t, dir)
	defer srv.stop()

	holder, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "data.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("DELETE FROM organizations WHERE 0"); err != nil { // note: takes the write lock
		t.Fatal(err)
	}
	const held = 12 * time.Second // past the busy timeout of 10 s
	released := time.AfterFunc(held, func() { tx.Rollback() })
	defer released.Stop()
	start := time.Now()
	a := send(http.MethodPost, srv.base+"/api/enrichment/products/submissions", key.Key, []byte(`{"items": [{"sku": "TEE-1", "name": "Waited"}]}`))
	if a.status != http.StatusOK || !strings.Contains(string(a.body), `"CREATED"`) || time.Since(start) < held {
		t.Errorf("a submission while another process held the write lock for %s: %d after %s: %s", held, a.status, time.Since(start), a.body)
	}
}
