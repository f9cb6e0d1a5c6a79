package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRollbackCrashSafety kills `serve` with SIGKILL in the middle of a
// large rollback (thousands of accepted revisions, reverted in chunks) and
// checks that every revision is either reverted with its product holding
// the values from before it, or still accepted with its product holding
// the values it applied; then that rolling back again after a restart
// finishes the work, and that the metrics agree with the table.
func TestRollbackCrashSafety(t *testing.T) {
	dir := t.TempDir()
	var created struct{ ID int64 }
	cliJSON(t, dir, &created, "org", "create", "--name", "Rollback Co", "--json")
	orgID := fmt.Sprint(created.ID)
	var vendor vendorKey
	cliJSON(t, dir, &vendor, "apikey", "create", "--org", orgID, "--scopes", "catalog:read,catalog:submit", "--rate-limit", "0", "--json")
	cat := importCrashCatalog(t, dir, orgID)
	const suEmail, suPassword = "root@example.com", "rollback-password-1"
	cli(t, dir, "superuser", "upsert", suEmail, suPassword)

	srv := startServe(t, dir)
	api := srv.base + "/api/enrichment"
	since := time.Now().Add(-time.Second).UTC().Format(time.RFC3339Nano)
	var skus []string
	seen := map[string]bool{}
	for _, sku := range cat.skus {
		if cat.active[sku] && !seen[sku] {
			skus, seen[sku] = append(skus, sku), true
		}
	}
	var ids []int64
	for start := 0; start < len(skus); start += 500 {
		var items []map[string]any
		for _, sku := range skus[start:min(start+500, len(skus))] {
			items = append(items, map[string]any{"sku": sku, "name": "Rolled " + sku,
				"description": "A vendor's description of " + sku + ", to be rolled back."})
		}
		body, _ := json.Marshal(map[string]any{"externalSubmissionId": fmt.Sprint("rollback-", start), "items": items})
		a := send(http.MethodPost, api+"/products/submissions", vendor.Key, body)
		if a.err != nil || a.status != http.StatusOK {
			t.Fatalf("submit: %d %v %s", a.status, a.err, tail(string(a.body)))
		}
		got, err := parseIDs(a.body)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got...)
	}
	su := signIn(t, srv.base, "_superusers", suEmail, suPassword)
	for start := 0; start < len(ids); start += 1000 {
		var decisions []map[string]string
		for _, id := range ids[start:min(start+1000, len(ids))] {
			decisions = append(decisions, map[string]string{"id": fmt.Sprint(id), "status": "accepted"})
		}
		a := pbJSON(http.MethodPost, api+"/review/decisions", su, map[string]any{"decisions": decisions})
		var res struct{ Decided int }
		if a.err != nil || a.status != http.StatusOK || json.Unmarshal(a.body, &res) != nil || res.Decided != len(decisions) {
			t.Fatalf("accept: %d %v %s", a.status, a.err, tail(string(a.body)))
		}
	}
	t.Logf("%d revisions accepted", len(ids))

	// roll back, and kill the server once some chunks committed and not
	// all. note: asked through the API: a connection of this process to
	// the live database, even read-only, can shrink its -shm file under the
	// server's memory map when it closes (SIGBUS in the server)
	reverted := func() int {
		a := send(http.MethodGet, api+"/revisions?status=reverted&pageSize=1", vendor.Key, nil)
		var page struct{ TotalElements int }
		if a.err != nil || a.status != http.StatusOK || json.Unmarshal(a.body, &page) != nil {
			t.Fatalf("revisions reverted so far: %d %v %s", a.status, a.err, tail(string(a.body)))
		}
		return page.TotalElements
	}
	rollback := fmt.Sprintf(`{"apiClient":%d,"since":"%s"}`, vendor.ID, since)
	answered := make(chan answer, 1)
	go func() {
		answered <- send(http.MethodPost, api+"/review/rollbacks", "", []byte(rollback), "Authorization", su)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for n := reverted(); n == 0; n = reverted() {
		select {
		case a := <-answered:
			t.Fatalf("the rollback answered before any revision was seen reverted: %d %v %s\nserve's stderr begins: %s", a.status, a.err,
				tail(string(a.body)), srv.stderr.String()[:min(4000, len(srv.stderr.String()))])
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no revision reverted in 60 s: %s", tail(srv.output()))
		}
	}
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	select {
	case <-srv.done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve still running 10 s after SIGKILL")
	}
	if a := <-answered; a.err == nil {
		t.Fatalf("the rollback answered before the kill (%d %s): nothing was interrupted", a.status, a.body)
	}
	db := openReadOnly(t, dir) // serve is dead
	before := checkRollbackPairs(t, db, len(ids))
	db.Close() // before serve starts again
	if before == 0 || before == len(ids) {
		t.Fatalf("%d of %d revisions reverted at the kill: not in the middle of the rollback", before, len(ids))
	}
	if before%500 != 0 {
		t.Errorf("%d revisions reverted at the kill: not whole chunks of 500", before)
	}
	t.Logf("SIGKILL with %d of %d revisions reverted", before, len(ids))

	// after a restart, rolling back again reverts the rest
	srv = startServe(t, dir)
	su = signIn(t, srv.base, "_superusers", suEmail, suPassword)
	a := send(http.MethodPost, srv.base+"/api/enrichment/review/rollbacks", "", []byte(rollback), "Authorization", su)
	var res struct{ Revisions, Restored, Conflicts, Products int }
	if a.err != nil || a.status != http.StatusOK || json.Unmarshal(a.body, &res) != nil {
		t.Fatalf("rollback after the restart: %d %v %s", a.status, a.err, tail(string(a.body)))
	}
	if rest := len(ids) - before; res.Revisions != rest || res.Restored != 2*rest || res.Conflicts != 0 || res.Products != rest {
		t.Errorf("rollback after the restart: %+v, want the %d revisions left", res, rest)
	}
	var m struct{ Reviewed, Accepted, Rejected, Reverted int }
	if err := json.Unmarshal(mustGet(t, srv.base+"/api/enrichment/acceptance-rate", vendor.Key, http.StatusOK), &m); err != nil {
		t.Fatal(err)
	}
	if m.Reviewed != len(ids) || m.Accepted != 0 || m.Rejected != len(ids) || m.Reverted != len(ids) {
		t.Errorf("metrics after the rollbacks: %+v, want %d reverted (and rejected)", m, len(ids))
	}
	srv.stop()
	if out := srv.stdout.String() + srv.stderr.String(); strings.Contains(strings.ToLower(out), "database is locked") {
		t.Errorf("serve reported a locked database: %s", tail(out))
	}
	if n := checkRollbackPairs(t, openReadOnly(t, dir), len(ids)); n != len(ids) {
		t.Errorf("%d of %d revisions reverted after the second rollback", n, len(ids))
	}
}

// checkRollbackPairs checks every revision of the rollback test against its
// product: reverted ones with the product's values from before them
// (their base), accepted ones with the values they applied; it returns
// how many are reverted.
func checkRollbackPairs(t *testing.T, db *sql.DB, want int) int {
	t.Helper()
	rows, err := db.Query(`SELECT r.id, r.status,
		p.name = json_extract(r.base, '$.name') AND p.description = json_extract(r.base, '$.description'),
		p.name = json_extract(r.proposed, '$.name') AND p.description = json_extract(r.proposed, '$.description'),
		r.revertedAt != '' AND r.revertedBy IN (SELECT id FROM _superusers)
		FROM revisions r JOIN products p ON p.id = r.product`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	total, reverted, bad := 0, 0, 0
	for rows.Next() {
		var id, status string
		var asBase, asApplied, stamped bool
		if err := rows.Scan(&id, &status, &asBase, &asApplied, &stamped); err != nil {
			t.Fatal(err)
		}
		total++
		ok := status == "reverted" && asBase && stamped || status == "accepted" && asApplied && !stamped
		if status == "reverted" {
			reverted++
		}
		if !ok && bad < 10 {
			t.Errorf("revision %s is %s; product as before it %v, as it applied %v; revertedAt/By set %v", id, status, asBase, asApplied, stamped)
		}
		if !ok {
			bad++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if total != want || bad > 0 {
		t.Errorf("%d revisions, %d of them inconsistent with their product; want %d revisions", total, bad, want)
	}
	return reverted
}
