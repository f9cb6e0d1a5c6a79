package e2e

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
)

const submissionsPath = "/api/enrichment/products/submissions"

// loadClient sends the load's requests; a batch may wait behind others.
var loadClient = &http.Client{Timeout: 30 * time.Second}

// answer is one HTTP exchange; err set means no answer came.
type answer struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// send makes one request with an optional key and JSON body.
func send(method, url, key string, body []byte, headers ...string) answer {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set(keyHeader, key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := loadClient.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

// parseIDs returns the ids of a submission answer's CREATED items.
func parseIDs(body []byte) ([]int64, error) {
	var res []struct {
		SKU, Status string
		RevisionID  *int64
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return nil, fmt.Errorf("submission answer %s: %w", tail(string(body)), err)
	}
	var ids []int64
	for _, r := range res {
		if (r.Status == "CREATED") != (r.RevisionID != nil) {
			return nil, fmt.Errorf("item %s: status %s with revisionId %v", r.SKU, r.Status, r.RevisionID)
		}
		if r.RevisionID != nil {
			ids = append(ids, *r.RevisionID)
		}
	}
	return ids, nil
}

// newOrgWithKey creates an organization in dir and an unlimited key with
// both scopes for it.
func newOrgWithKey(t *testing.T, dir, name string) (org, key string) {
	t.Helper()
	var created struct{ ID int64 }
	cliJSON(t, dir, &created, "org", "create", "--name", name, "--json")
	org = fmt.Sprint(created.ID)
	var k struct{ Key string }
	cliJSON(t, dir, &k, "apikey", "create", "--org", org, "--scopes", "catalog:read,catalog:submit", "--rate-limit", "0", "--json")
	if k.Key == "" {
		t.Fatal("apikey create printed no key")
	}
	return org, k.Key
}

// openReadOnly opens a data folder's data.db without writing to it.
func openReadOnly(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "data.db")+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// crashBatch is one submission of the load and what became of it.
type crashBatch struct {
	ext     string
	body    []byte
	created int // items naming an active product: CREATED when stored
	sentAt  time.Time
	acked   bool
	ackedAt time.Time
	ids     []int64 // revision ids of the 200 answer
	err     error   // no answer
}

// newCrashBatch builds a batch of 50..300 items on random SKUs.
func newCrashBatch(rng *rand.Rand, ext string, skus []string, active map[string]bool) *crashBatch {
	n := 50 + rng.IntN(251)
	items := make([]map[string]any, 0, n)
	b := &crashBatch{ext: ext}
	for _, i := range rng.Perm(len(skus))[:n] {
		item := map[string]any{"sku": skus[i], "name": fmt.Sprintf("%s item %d", ext, len(items)),
			"description": strings.Repeat("Crash-tested description. ", 1+rng.IntN(8))}
		if rng.IntN(4) > 0 {
			item["confidence"] = rng.IntN(101)
		}
		items = append(items, item)
		if active[skus[i]] {
			b.created++
		}
	}
	b.body, _ = json.Marshal(map[string]any{"externalSubmissionId": ext, "items": items})
	return b
}

// crashCatalog is the catalog the SIGKILL tests submit to.
type crashCatalog struct {
	skus        []string
	active      map[string]bool
	activeCount int
}

// importCrashCatalog imports a generated catalog of 3000 products into
// organization orgID of data folder dir.
func importCrashCatalog(t *testing.T, dir, orgID string) crashCatalog {
	t.Helper()
	var file bytes.Buffer
	if err := gen.Write(&file, gen.Options{Products: 3000, Templates: 5, Brands: 30, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	var catalog struct {
		Products []struct {
			SKU    string `json:"sku"`
			Active *bool  `json:"active"`
		} `json:"products"`
	}
	if err := json.Unmarshal(file.Bytes(), &catalog); err != nil {
		t.Fatal(err)
	}
	skus, active, activeCount := []string{}, map[string]bool{}, 0
	for _, p := range catalog.Products {
		skus = append(skus, p.SKU)
		if active[p.SKU] = p.Active == nil || *p.Active; active[p.SKU] {
			activeCount++
		}
	}
	catalogPath := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(catalogPath, file.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	cli(t, dir, "import", "--org", orgID, catalogPath)
	t.Logf("imported %d products (%d active) in %s", len(skus), activeCount, time.Since(started).Round(time.Millisecond))
	return crashCatalog{skus: skus, active: active, activeCount: activeCount}
}

// TestCrashSafety kills `serve` with SIGKILL in the middle of a submission
// load and checks after a restart that every acknowledged batch is stored in
// full, no batch in part, and that revision ids are never handed out twice.
func TestCrashSafety(t *testing.T) {
	dir := t.TempDir()
	orgID, key := newOrgWithKey(t, dir, "Crash Co")
	cat := importCrashCatalog(t, dir, orgID)

	batches, killedAt := killUnderLoad(t, startServe(t, dir), key, cat, time.Second)

	srv := startServe(t, dir)
	api := srv.base + "/api/enrichment"
	fresh := newCrashBatch(rand.New(rand.NewPCG(1, 2)), "after-restart", cat.skus, cat.active)
	checkAfterCrash(t, openReadOnly(t, dir), api, key, batches, fresh, killedAt,
		func(b *crashBatch) bool { return b.acked })

	// the service answers normally
	mustGet(t, srv.base+"/api/health", "", http.StatusOK)
	var page struct{ TotalElements int }
	if err := json.Unmarshal(mustGet(t, api+"/products?pageSize=5", key, http.StatusOK), &page); err != nil ||
		page.TotalElements != cat.activeCount {
		t.Errorf("export after restart: %d products (%v), want %d", page.TotalElements, err, cat.activeCount)
	}
	srv.stop()
	if out := srv.stdout.String() + srv.stderr.String(); strings.Contains(strings.ToLower(out), "database is locked") {
		t.Errorf("serve reported a locked database: %s", tail(out))
	}
}

// killUnderLoad runs 4 submitters and 2 readers against srv and kills it
// with SIGKILL at a random moment between minLoad and minLoad + 2 s of the
// load (once 3 batches were acknowledged). It returns every batch sent, with
// what its sender saw, and the moment of the kill.
func killUnderLoad(t *testing.T, srv *process, key string, cat crashCatalog, minLoad time.Duration) ([]*crashBatch, time.Time) {
	t.Helper()
	api := srv.base + "/api/enrichment"
	var (
		mu       sync.Mutex
		batches  []*crashBatch
		stop     atomic.Bool
		killedAt atomic.Int64 // unix nanos
		acked    atomic.Int64
		reads    atomic.Int64
		wg       sync.WaitGroup
		failures problems
	)
	beforeKill := func(at time.Time) bool { k := killedAt.Load(); return k == 0 || at.UnixNano() < k }
	const submitters, readers = 4, 2
	for w := range submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for n := 0; !stop.Load(); n++ {
				b := newCrashBatch(rng, fmt.Sprintf("crash-w%d-b%03d", w, n), cat.skus, cat.active)
				b.sentAt = time.Now()
				mu.Lock()
				batches = append(batches, b)
				mu.Unlock()
				a := send(http.MethodPost, api+"/products/submissions", key, b.body)
				b.err = a.err
				switch {
				case a.err == nil && a.status == http.StatusOK:
					var err error
					if b.ids, err = parseIDs(a.body); err != nil {
						failures.add("batch %s: %v", b.ext, err)
					}
					b.acked, b.ackedAt = true, time.Now()
					acked.Add(1)
				case a.err == nil:
					failures.add("batch %s: status %d: %s", b.ext, a.status, tail(string(a.body)))
				}
			}
		}()
	}
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(100+r), uint64(time.Now().UnixNano())))
			for !stop.Load() {
				at := time.Now()
				var a answer
				if rng.IntN(2) == 0 {
					a = send(http.MethodGet, fmt.Sprintf("%s/products?page=%d&pageSize=100", api, rng.IntN(30)), key, nil)
				} else {
					pick := make([]string, 50)
					for i := range pick {
						pick[i] = cat.skus[rng.IntN(len(cat.skus))]
					}
					body, _ := json.Marshal(map[string]any{"skus": pick})
					a = send(http.MethodPost, api+"/products/skus", key, body)
				}
				if a.err == nil && a.status != http.StatusOK && beforeKill(at) {
					failures.add("read: status %d: %s", a.status, tail(string(a.body)))
				}
				reads.Add(1)
			}
		}()
	}

	// kill at a random moment of the load, once it is well under way
	loadStart := time.Now()
	killAfter := minLoad + time.Duration(rand.Int64N(int64(2*time.Second)))
	for time.Since(loadStart) < killAfter || acked.Load() < 3 {
		if time.Since(loadStart) > 30*time.Second {
			stop.Store(true)
			t.Fatalf("only %d batches acknowledged in 30 s: %s", acked.Load(), srv.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
	killedAt.Store(time.Now().UnixNano())
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	stop.Store(true)
	select {
	case <-srv.done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve still running 10 s after SIGKILL")
	}
	waitGroup(t, &wg, 40*time.Second)
	failures.report(t)
	sentBefore := 0
	for _, b := range batches {
		if beforeKill(b.sentAt) {
			sentBefore++
		}
	}
	t.Logf("load: SIGKILL after %s; %d submissions sent before it (%d more refused after), %d acknowledged, %d reads",
		killAfter.Round(time.Millisecond), sentBefore, len(batches)-sentBefore, acked.Load(), reads.Load())
	return batches, time.Unix(0, killedAt.Load())
}

// checkAfterCrash compares what the load saw with what the restarted server
// stored: the batches that must survive (required) in full with the ids they
// were answered, every other acknowledged batch so too or not at all, every
// batch all or nothing, ids unique and below the sequence, replays
// identical, new ids above all old.
func checkAfterCrash(t *testing.T, db *sql.DB, api, key string, batches []*crashBatch, fresh *crashBatch, killedAt time.Time,
	required func(*crashBatch) bool) {
	var check string
	if err := db.QueryRow(`PRAGMA quick_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("quick_check after the crash: %q %v", check, err)
	}
	groups := map[string][]int64{}
	seen := map[int64]bool{}
	var maxID int64
	for _, row := range column(t, db, `SELECT CAST(id AS INTEGER) || ' ' || externalSubmissionId FROM revisions`) {
		var id int64
		var ext string
		if _, err := fmt.Sscan(row, &id, &ext); err != nil {
			t.Fatalf("revision %q: %v", row, err)
		}
		if seen[id] {
			t.Errorf("revision id %d stored twice", id)
		}
		seen[id], maxID = true, max(maxID, id)
		groups[ext] = append(groups[ext], id)
	}
	var last int64
	if err := db.QueryRow(`SELECT last FROM _enrichment_seq WHERE name = 'revisions'`).Scan(&last); err != nil || last < maxID {
		t.Errorf("revisions sequence at %d (%v), below the largest stored id %d", last, err, maxID)
	}
	replayable := map[string]bool{}
	for _, k := range column(t, db, `SELECT key FROM _enrichment_idempotency`) {
		replayable[k] = true
	}

	sent := map[string]*crashBatch{}
	var found, inFlight, inFlightStored, ackedLost int
	for _, b := range batches {
		sent[b.ext] = b
		got := groups[b.ext]
		if len(got) > 0 {
			found++
		}
		switch {
		case required(b) || (b.acked && len(got) > 0):
			if len(got) != b.created || !sameIDs(got, b.ids) {
				t.Errorf("acknowledged batch %s (%s before the kill): stored ids %s, answered %s (%d CREATED)",
					b.ext, killedAt.Sub(b.ackedAt).Round(time.Millisecond), idsText(got), idsText(b.ids), b.created)
			}
		case b.acked:
			ackedLost++
			t.Logf("acknowledged %s before the kill and not kept: %s", killedAt.Sub(b.ackedAt).Round(time.Millisecond), b.ext)
		case len(got) != 0 && len(got) != b.created:
			t.Errorf("batch %s stored in part: %d of %d revisions", b.ext, len(got), b.created)
		}
		if (len(got) > 0) != replayable[b.ext] {
			t.Errorf("batch %s: %d revisions stored, idempotency record %v", b.ext, len(got), replayable[b.ext])
		}
		if !b.acked {
			verdict := "nothing stored"
			if len(got) > 0 {
				verdict, inFlightStored = "all stored", inFlightStored+1
			}
			if b.sentAt.Before(killedAt) {
				inFlight++
				t.Logf("in flight at the kill: %s (%d CREATED items, sent %s before): %s; client saw %v",
					b.ext, b.created, killedAt.Sub(b.sentAt).Round(time.Millisecond), verdict, b.err)
			} else if len(got) > 0 {
				t.Errorf("batch %s sent after the kill is stored", b.ext)
			}
		}
	}
	for ext, ids := range groups {
		if sent[ext] == nil {
			t.Errorf("%d revisions with externalSubmissionId %q that no client sent", len(ids), ext)
		}
	}
	t.Logf("after restart: %d batches found of %d sent; %d revisions, largest id %d, sequence at %d; %d in flight at the kill, %d of them stored; %d acknowledged and not kept",
		found, len(batches), len(seen), maxID, last, inFlight, inFlightStored, ackedLost)

	// retries: an acknowledged or stored batch is answered again as it was;
	// one lost in the crash is stored now, with new ids
	for _, b := range batches {
		a := send(http.MethodPost, api+"/products/submissions", key, b.body)
		if a.err != nil || a.status != http.StatusOK {
			t.Errorf("retry of %s: %d %v %s", b.ext, a.status, a.err, tail(string(a.body)))
			continue
		}
		ids, err := parseIDs(a.body)
		replayed := a.header.Get("Idempotent-Replayed") == "true"
		switch stored := groups[b.ext]; {
		case err != nil:
			t.Errorf("retry of %s: %v", b.ext, err)
		case len(stored) > 0 && (!replayed || !sameIDs(ids, stored)):
			t.Errorf("retry of stored batch %s: replayed %v, ids %v, stored %v", b.ext, replayed, ids, stored)
		case len(stored) == 0 && (replayed || len(ids) != b.created):
			t.Errorf("retry of lost batch %s: replayed %v, %d ids, want %d new", b.ext, replayed, len(ids), b.created)
		case len(stored) == 0 && len(ids) > 0 && slices.Min(ids) <= maxID:
			t.Errorf("retry of lost batch %s got id %d, not above %d, the largest stored before", b.ext, slices.Min(ids), maxID)
		}
	}
	a := send(http.MethodPost, api+"/products/submissions", key, fresh.body)
	if a.err != nil || a.status != http.StatusOK {
		t.Fatalf("new submission after restart: %d %v %s", a.status, a.err, tail(string(a.body)))
	}
	if ids, err := parseIDs(a.body); err != nil || len(ids) == 0 {
		t.Fatalf("new submission after restart created nothing: %v", err)
	} else if slices.Min(ids) <= maxID {
		t.Errorf("new batch after restart got id %d, not above %d, the largest stored before", slices.Min(ids), maxID)
	}
}

// column returns the first column of a query's rows as text.
func column(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// idsText shortens a list of ids for a message.
func idsText(ids []int64) string {
	if len(ids) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d ids in %d..%d", len(ids), slices.Min(ids), slices.Max(ids))
}

func sameIDs(a, b []int64) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// problems collects what goroutines found wrong, for the test to report.
type problems struct {
	mu   sync.Mutex
	list []string
}

func (p *problems) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.list) < 100 {
		p.list = append(p.list, fmt.Sprintf(format, args...))
	}
}

func (p *problems) report(t *testing.T) {
	t.Helper()
	for _, s := range p.list {
		t.Error(s)
	}
}

// waitGroup waits for wg, failing the test after limit.
func waitGroup(t *testing.T, wg *sync.WaitGroup, limit time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("load goroutines still running %s after the stop", limit)
	}
}
