package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
)

const (
	v2SuperuserEmail, v2SuperuserPassword = "root@example.com", "upgrade-password-2"
	v2ReviewerEmail, v2ReviewerPassword   = "reviewer@alpha.example", "reviewer-password-2"
)

// v2Batch is a submission made to Version 2, to be sent again after the
// upgrade.
type v2Batch struct {
	name, key    string
	body, answer []byte
}

// v2Folder is what the Version 2 binary left in a data folder, as the test
// checks it after the upgrade.
type v2Folder struct {
	keys                 map[string]string // the snapshot's vendors by name
	keyA                 string
	revoked, rotatedOut  string // revoked; replaced by a rotation, in its grace period
	skusA                []string
	batches              []v2Batch
	accepted, rejected   int64 // decided by a reviewer
	superseded, pending  int64 // superseded by the same client; left pending
	orgB, pendingB       int64 // organization B, which requires reasons, and a pending revision of it
	okHook, failingHook  int64 // subscriptions of vendor A
	failingSecret        string
	failingDeliveries    []string // pending when Version 2 stopped
	failedAttempts       int      // the failing receiver's requests by then
	midCursor, endCursor string   // change feed cursors after its first page and at its end
	afterMid             []any    // the change feed's items after midCursor
	before               apiSnapshot
}

// TestUpgradeFromVersion2 builds Version 2, lets it make a data folder with
// what Version 2 introduced (decisions with reasons and comments, partial
// approvals, supersession, a re-import that kept and overwrote accepted
// values, webhook subscriptions with deliveries, the change feed, organization
// settings, a reviewer), then starts this release on it: everything read
// through the API is as before or only extended, keys, idempotent replays,
// final decisions, the change feed's cursors and pending deliveries carry on.
//
// No revision is expired: Version 2 expires a revision only whole days
// (proposalTtlDays, at least 1) after it was created, and no API sets that
// time (its own tests write the state into the database), so superseded
// revisions are the folder's only ones closed by the service.
func TestUpgradeFromVersion2(t *testing.T) {
	t.Setenv("ENRICHMENT_WEBHOOK_ALLOW_PRIVATE", "1")
	t.Setenv("ENRICHMENT_WEBHOOK_BACKOFF", "5s")
	okReceiver := newReceiver(t, func(int) int { return http.StatusOK })
	var healed atomic.Bool
	failingReceiver := newReceiver(t, func(int) int {
		if healed.Load() {
			return http.StatusNoContent
		}
		return http.StatusServiceUnavailable
	})
	old := buildRelease(t, version2Release)
	dir := t.TempDir()
	v := makeVersion2Folder(t, old, dir, okReceiver, failingReceiver)

	// the receiver is back when this release starts: the delivery Version 2
	// could not make is made by this release, with its id and secret
	healed.Store(true)
	srv := startServe(t, dir)
	api := srv.base + "/api/enrichment"
	reviewer := signIn(t, srv.base, "reviewers", v2ReviewerEmail, v2ReviewerPassword)
	after := snapshotV2(t, srv.base, v, reviewer)
	for name, b := range v.before {
		for _, d := range extends(b, after[name], name) {
			t.Errorf("after the upgrade: %s", d)
		}
	}
	if items, _ := followChanges(t, api, v.keyA, v.endCursor, 50); len(items) != 0 {
		t.Errorf("the change feed after the upgrade, from the cursor taken before it: %v, want nothing new", items)
	}

	for name, key := range map[string]string{"a rotated-out key in its grace period": v.rotatedOut, "a revoked key": v.revoked} {
		if status, _ := get(api+"/attribute-templates", key); status != map[bool]int{true: 401, false: 200}[key == v.revoked] {
			t.Errorf("%s: %d after the upgrade", name, status)
		}
	}
	for _, b := range v.batches {
		replay := send(http.MethodPost, api+"/products/submissions", b.key, b.body)
		if replay.status != 200 || replay.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(replay.body, b.answer) {
			t.Errorf("the idempotent retry of %s after the upgrade: %d %q %s, want %s", b.name, replay.status,
				replay.header.Get("Idempotent-Replayed"), replay.body, b.answer)
		}
	}

	su := signIn(t, srv.base, "_superusers", v2SuperuserEmail, v2SuperuserPassword)
	decide := func(token string, id int64, body string) answer {
		return pbJSON(http.MethodPatch, fmt.Sprintf("%s/api/collections/revisions/records/%d", srv.base, id), token, json.RawMessage(body))
	}
	for name, id := range map[string]int64{"accepted": v.accepted, "rejected": v.rejected, "superseded": v.superseded} {
		if a := decide(su, id, `{"status":"accepted"}`); a.status != 400 {
			t.Errorf("accepting a revision %s before the upgrade: %d %s, want 400", name, a.status, a.body)
		}
	}
	if a := decide(reviewer, v.pending, `{"status":"accepted","comment":"After the upgrade"}`); a.status != 200 {
		t.Errorf("the reviewer deciding a revision left pending before the upgrade: %d %s", a.status, a.body)
	}
	// organization B's setting requireReason came through
	if a := decide(su, v.pendingB, `{"status":"rejected"}`); a.status != 400 {
		t.Errorf("a rejection without reason in an organization that requires one: %d %s, want 400", a.status, a.body)
	}
	if a := decide(su, v.pendingB, `{"status":"rejected","reason":"duplicate"}`); a.status != 200 {
		t.Errorf("a rejection with reason in organization B: %d %s", a.status, a.body)
	}
	var orgB struct{ ProposalTtlDays int }
	a := pbJSON(http.MethodGet, fmt.Sprintf("%s/api/collections/organizations/records/%d", srv.base, v.orgB), su, nil)
	if a.status != 200 || json.Unmarshal(a.body, &orgB) != nil || orgB.ProposalTtlDays != 7 {
		t.Errorf("organization B after the upgrade: %d %s, want proposalTtlDays 7", a.status, a.body)
	}

	// the feed continues from either cursor with the one change made since,
	// and from there with nothing
	items, next := followChanges(t, api, v.keyA, v.endCursor, 50)
	if len(items) != 1 || field(items[0], "sku") != v.skusA[3] || field(items[0], "change") != "upsert" {
		t.Errorf("the change feed from the cursor taken before the upgrade, after one acceptance: %v, want %s", items, v.skusA[3])
	}
	if again, _ := followChanges(t, api, v.keyA, next, 50); len(again) != 0 {
		t.Errorf("the change feed repeats after its cursor: %v", again)
	}
	fromMid, _ := followChanges(t, api, v.keyA, v.midCursor, 50)
	if len(fromMid) != len(v.afterMid)+1 {
		t.Errorf("the change feed from its first page's cursor: %d items, want the %d read before the upgrade and one", len(fromMid), len(v.afterMid))
	} else {
		for _, d := range extends(v.afterMid, fromMid[:len(v.afterMid)], "changes after the first page") {
			t.Errorf("after the upgrade: %s", d)
		}
	}

	ws := &webhookService{srv: srv, key: v.keyA}
	if ids := deliveryIDs(ws.deliveries(t, v.failingHook), ""); !slices.Equal(ids, v.failingDeliveries) {
		t.Errorf("the deliveries pending before the upgrade: %v, after it: %v", v.failingDeliveries, ids)
	}
	got := failingReceiver.wait(t, v.failedAttempts+1, 60*time.Second)
	t.Logf("the delivery pending since Version 2 made %s after this release started", got[len(got)-1].at.Sub(srv.started).Round(time.Millisecond))
	verifySignature(t, v.failingSecret, got[len(got)-1])
	if id := got[len(got)-1].header.Get("webhook-id"); !slices.Contains(v.failingDeliveries, id) {
		t.Errorf("the delivery retried after the upgrade has id %q, want one of %v", id, v.failingDeliveries)
	}
	if ids := waitDelivered(t, ws, v.failingHook, len(v.failingDeliveries)); !slices.Equal(ids, v.failingDeliveries) {
		t.Errorf("deliveries pending before the upgrade: %v, delivered after it: %v", v.failingDeliveries, ids)
	}
	// this release's dispatcher delivers the acceptance made since, and
	// nothing Version 2 delivered again
	if got := okReceiver.wait(t, 6, 20*time.Second); len(got) != 6 || field(decodeBody(t, got[5].body), "type") != "revision.accepted" {
		t.Errorf("the deliveries after the upgrade: %d, the last %s; want one acceptance", len(got)-5, got[len(got)-1].body)
	}
	srv.stop()
	srv.checkNoSQLEcho()
}

// makeVersion2Folder lets the Version 2 binary old make data folder dir
// through its own command line and API.
func makeVersion2Folder(t *testing.T, old, dir string, okReceiver, failingReceiver *receiver) *v2Folder {
	t.Helper()
	v := &v2Folder{}
	type created struct {
		ID  int64  `json:"id"`
		Key string `json:"key"`
	}
	var orgA, orgB, keyA, keyB, revoked, rotated, rotatedNew created
	oldCLI(t, old, dir, &orgA, "org", "create", "--name", "Alpha", "--json")
	oldCLI(t, old, dir, &orgB, "org", "create", "--name", "Beta", "--json")
	catalogA := genCatalog(t, gen.Options{Products: 120, Templates: 3, Brands: 4, Seed: 21})
	oldCLI(t, old, dir, nil, "import", "--org", fmt.Sprint(orgA.ID), writeTemp(t, "a.json", catalogA))
	oldCLI(t, old, dir, nil, "import", "--org", fmt.Sprint(orgB.ID),
		writeTemp(t, "b.json", genCatalog(t, gen.Options{Products: 30, Templates: 2, Brands: 2, Seed: 22})))
	scopes := "catalog:read,catalog:submit"
	oldCLI(t, old, dir, &keyA, "apikey", "create", "--org", fmt.Sprint(orgA.ID), "--scopes", scopes, "--rate-limit", "0", "--name", "vendor a", "--json")
	oldCLI(t, old, dir, &keyB, "apikey", "create", "--org", fmt.Sprint(orgB.ID), "--scopes", scopes, "--json")
	oldCLI(t, old, dir, &revoked, "apikey", "create", "--org", fmt.Sprint(orgA.ID), "--scopes", scopes, "--json")
	oldCLI(t, old, dir, nil, "apikey", "revoke", fmt.Sprint(revoked.ID))
	oldCLI(t, old, dir, &rotated, "apikey", "create", "--org", fmt.Sprint(orgA.ID), "--scopes", scopes, "--json")
	oldCLI(t, old, dir, &rotatedNew, "apikey", "rotate", fmt.Sprint(rotated.ID), "--grace", "24h", "--json")
	oldCLI(t, old, dir, nil, "superuser", "upsert", v2SuperuserEmail, v2SuperuserPassword)
	v.orgB, v.keyA, v.revoked, v.rotatedOut = orgB.ID, keyA.Key, revoked.Key, rotated.Key
	v.keys = map[string]string{"A": keyA.Key, "B": keyB.Key, "A rotated": rotatedNew.Key}

	srv := startServeOf(t, old, dir)
	base, api := srv.base, srv.base+"/api/enrichment"
	su := signIn(t, base, "_superusers", v2SuperuserEmail, v2SuperuserPassword)
	records := base + "/api/collections/"
	if a := pbJSON(http.MethodPost, records+"reviewers/records", su, map[string]any{"email": v2ReviewerEmail,
		"password": v2ReviewerPassword, "passwordConfirm": v2ReviewerPassword, "organization": fmt.Sprint(orgA.ID)}); a.status != 200 {
		t.Fatalf("create a reviewer on Version 2: %d %s", a.status, a.body)
	}
	if a := pbJSON(http.MethodPatch, fmt.Sprintf("%sorganizations/records/%d", records, orgB.ID), su,
		map[string]any{"requireReason": true, "proposalTtlDays": 7}); a.status != 200 {
		t.Fatalf("organization B's settings on Version 2: %d %s", a.status, a.body)
	}
	ws := &webhookService{srv: srv, key: keyA.Key}
	v.okHook, _ = ws.subscribe(t, okReceiver.URL, "revision.accepted", "revision.rejected", "revision.superseded")

	v.skusA = exportSKUs(t, api, keyA.Key, 8)
	submit := func(name, key string, body []byte) []int64 {
		a := send(http.MethodPost, api+"/products/submissions", key, body)
		ids, err := parseIDs(a.body)
		if a.status != 200 || err != nil {
			t.Fatalf("submission %s to Version 2: %d %v %s", name, a.status, err, a.body)
		}
		v.batches = append(v.batches, v2Batch{name, key, body, a.body})
		return ids
	}
	ids := submit("v2-a-1", keyA.Key, submissionBody("v2-a-1", v.skusA, nil))
	decide := func(id int64, body string) {
		if a := pbJSON(http.MethodPatch, fmt.Sprintf("%srevisions/records/%d", records, id), su, json.RawMessage(body)); a.status != 200 {
			t.Fatalf("decide %d on Version 2 (%s): %d %s", id, body, a.status, a.body)
		}
	}
	decide(ids[0], `{"status":"accepted","comment":"Good copy"}`)
	decide(ids[1], `{"status":"accepted","approvedFields":["name"],"reason":"incomplete","comment":"Only the name"}`)
	decide(ids[2], `{"status":"rejected","reason":"off_brand","comment":"Not our voice"}`)
	v.accepted, v.rejected, v.pending = ids[0], ids[2], ids[3]
	// the same client again for two products: every field of the first
	// proposal (superseded), only the name of the second (still pending)
	again := submit("v2-a-2", keyA.Key, submissionBody("v2-a-2", v.skusA[4:6], map[string][]string{v.skusA[5]: {"name"}}))
	v.superseded = ids[4]
	if len(ids) != 8 || len(again) != 2 {
		t.Fatalf("Version 2 created %d and %d revisions, want 8 and 2", len(ids), len(again))
	}
	idsB := submit("v2-b-1", keyB.Key, submissionBody("v2-b-1", exportSKUs(t, api, keyB.Key, 3), nil))
	v.pendingB = idsB[0]

	// the merchant's feed again: the fully accepted product as before (its
	// accepted values stay), the partly accepted one renamed (the file wins)
	var counts importCounts
	renamed := renameProduct(t, catalogA, v.skusA[1], "Renamed by the merchant's feed")
	oldCLI(t, old, dir, &counts, "import", "--org", fmt.Sprint(orgA.ID), writeTemp(t, "a2.json", renamed), "--json")
	if counts.Updated != 1 || counts.KeptEnriched != 1 {
		t.Fatalf("re-import on Version 2: %+v, want one updated and one kept enriched", counts)
	}

	// a receiver that fails: its delivery is pending when Version 2 stops
	v.failingHook, v.failingSecret = ws.subscribe(t, failingReceiver.URL, "revision.rejected")
	decide(ids[6], `{"status":"rejected","reason":"inaccurate"}`)
	okReceiver.wait(t, 5, 20*time.Second)
	failingReceiver.wait(t, 1, 20*time.Second)
	if delivered := waitDelivered(t, ws, v.okHook, 5); len(delivered) != 5 {
		t.Fatalf("Version 2 delivered %v, want 5 deliveries", delivered)
	}
	v.failingDeliveries = deliveryIDs(ws.deliveries(t, v.failingHook), "pending")
	if len(v.failingDeliveries) != 1 {
		t.Fatalf("Version 2's failing deliveries: %v, want one pending", ws.deliveries(t, v.failingHook))
	}

	_, v.midCursor, _ = readChanges(t, api, keyA.Key, "", 50)
	v.afterMid, v.endCursor = followChanges(t, api, keyA.Key, v.midCursor, 50)
	reviewer := signIn(t, base, "reviewers", v2ReviewerEmail, v2ReviewerPassword)
	v.before = snapshotV2(t, base, v, reviewer)
	checkVersion2Folder(t, v, ids, again)
	srv.stop()
	v.failedAttempts = len(failingReceiver.wait(t, 1, time.Second))
	return v
}

// checkVersion2Folder fails the test when the folder Version 2 made lacks
// a state the upgrade must keep: else the comparison proves nothing.
func checkVersion2Folder(t *testing.T, v *v2Folder, ids, again []int64) {
	t.Helper()
	revs := map[string]map[string]any{}
	for _, r := range v.before["A revisions"].(map[string]any)["items"].([]any) {
		rev := r.(map[string]any)
		revs[field(rev, "id")] = rev
	}
	want := []struct {
		id                    int64
		status, reason, field string
		state                 string // of field
	}{
		{ids[0], "accepted", "", "name", "applied"},
		{ids[1], "accepted", "incomplete", "name", "overwritten"},
		{ids[1], "accepted", "incomplete", "description", "not_applied"},
		{ids[2], "rejected", "off_brand", "name", "not_applied"},
		{ids[3], "pending", "", "name", "pending"},
		{ids[4], "superseded", "", "name", "superseded"},
		{ids[5], "pending", "", "name", "superseded"},
		{ids[5], "pending", "", "description", "pending"},
		{ids[6], "rejected", "inaccurate", "name", "not_applied"},
	}
	for _, w := range want {
		r := revs[fmt.Sprint(w.id)]
		fields, _ := r["fields"].(map[string]any)
		if r == nil || field(r, "status") != w.status || field(r, "reason") != w.reason || fmt.Sprint(fields[w.field]) != w.state {
			t.Errorf("Version 2's revision %d: %v, want %s (reason %q) with %s %s", w.id, r, w.status, w.reason, w.field, w.state)
		}
	}
	if r := revs[fmt.Sprint(ids[4])]; r == nil || field(r, "supersededBy") != fmt.Sprint(again[0]) || field(r, "closedAt") == "" {
		t.Errorf("Version 2's superseded revision: %v, want supersededBy %d and closedAt", r, again[0])
	}
	if r := revs[fmt.Sprint(ids[1])]; r == nil || field(r, "comment") != "Only the name" {
		t.Errorf("Version 2's partial approval: %v, want its comment", r)
	}
	metrics := v.before["A metrics"].(map[string]any)
	if metrics["superseded"] != 1.0 || metrics["accepted"] != 2.0 || metrics["rejected"] != 2.0 {
		t.Errorf("Version 2's acceptance rate: %v", metrics)
	}
	if items, _ := v.before["reviewer queue"].(map[string]any)["items"].([]any); len(items) == 0 {
		t.Errorf("Version 2's review queue is empty: %v", v.before["reviewer queue"])
	}
}

// snapshotV2 is snapshot with what Version 2 added: vendor A's change feed
// from its start, its webhook subscriptions and the deliveries of the one
// that succeeded, and the reviewer's queue.
func snapshotV2(t *testing.T, base string, v *v2Folder, reviewerToken string) apiSnapshot {
	t.Helper()
	out := snapshot(t, base, v.keys)
	api := base + "/api/enrichment"
	for name, url := range map[string]string{
		"A changes":    api + "/changes?limit=1000",
		"A webhooks":   api + "/webhooks",
		"A deliveries": fmt.Sprintf("%s/webhooks/%d/deliveries?pageSize=100", api, v.okHook),
	} {
		out[name] = decodeBody(t, mustGet(t, url, v.keyA, http.StatusOK))
	}
	// note: a cursor carries the time it was issued, so it differs on every
	// read; the test follows the cursors Version 2 issued instead
	delete(out["A changes"].(map[string]any), "next")
	a := pbJSON(http.MethodGet, api+"/review/queue", reviewerToken, nil)
	if a.status != http.StatusOK {
		t.Fatalf("the reviewer's queue: %d %s", a.status, a.body)
	}
	out["reviewer queue"] = decodeBody(t, a.body)
	return out
}

// followChanges follows the change feed from cursor until hasMore is
// false and returns the items and the last cursor.
func followChanges(t *testing.T, api, key, cursor string, limit int) ([]any, string) {
	t.Helper()
	var all []any
	for {
		items, next, more := readChanges(t, api, key, cursor, limit)
		all, cursor = append(all, items...), next
		if !more {
			return all, cursor
		}
	}
}

// readChanges reads one page of the change feed after cursor (from the
// start when empty): its items, next cursor and hasMore.
func readChanges(t *testing.T, api, key, cursor string, limit int) ([]any, string, bool) {
	t.Helper()
	url := fmt.Sprintf("%s/changes?limit=%d", api, limit)
	if cursor != "" {
		url += "&after=" + cursor
	}
	var page struct {
		Items   []any
		Next    string
		HasMore bool
	}
	if err := json.Unmarshal(mustGet(t, url, key, http.StatusOK), &page); err != nil {
		t.Fatal(err)
	}
	return page.Items, page.Next, page.HasMore
}

// deliveryIDs lists the ids of a subscription's deliveries in status (any
// when empty).
func deliveryIDs(deliveries []map[string]any, status string) []string {
	var ids []string
	for _, d := range deliveries {
		if status == "" || d["status"] == status {
			ids = append(ids, fmt.Sprint(d["id"]))
		}
	}
	slices.Sort(ids)
	return ids
}

// waitDelivered waits up to 10 s until a subscription has n deliveries
// delivered and returns their ids.
func waitDelivered(t *testing.T, ws *webhookService, hook int64, n int) []string {
	t.Helper()
	var ids []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && len(ids) < n; time.Sleep(50 * time.Millisecond) {
		ids = deliveryIDs(ws.deliveries(t, hook), "delivered")
	}
	return ids
}

// field is a JSON object's member as text ("" when absent or null).
func field(v any, name string) string {
	if m, _ := v.(map[string]any); m[name] != nil {
		return fmt.Sprint(m[name])
	}
	return ""
}

// decodeBody is a JSON body decoded; a body that is not JSON fails the test.
func decodeBody(t *testing.T, body []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", tail(string(body)), err)
	}
	return v
}

// exportSKUs returns the first n SKUs of the key's export.
func exportSKUs(t *testing.T, api, key string, n int) []string {
	t.Helper()
	var page struct{ Items []struct{ SKU string } }
	if err := json.Unmarshal(mustGet(t, fmt.Sprintf("%s/products?pageSize=%d", api, n), key, http.StatusOK), &page); err != nil {
		t.Fatal(err)
	}
	var skus []string
	for _, p := range page.Items {
		skus = append(skus, p.SKU)
	}
	return skus
}

// submissionBody proposes for each SKU a name, a description and an
// attribute, or only the fields that only lists for it.
func submissionBody(ext string, skus []string, only map[string][]string) []byte {
	var items []string
	for i, sku := range skus {
		proposed := map[string]string{
			"name":        fmt.Sprintf(`"%s name %d"`, ext, i),
			"description": fmt.Sprintf(`"Longer text %d of %s."`, i, ext),
			"attributes":  fmt.Sprintf(`[{"attribute":"Color","detail":"Teal %d","option":null}]`, i),
		}
		parts := []string{fmt.Sprintf(`"sku":%q,"confidence":%d`, sku, 30+i*17%70)}
		for _, f := range []string{"name", "description", "attributes"} {
			if only[sku] == nil || slices.Contains(only[sku], f) {
				parts = append(parts, fmt.Sprintf("%q:%s", f, proposed[f]))
			}
		}
		items = append(items, "{"+strings.Join(parts, ",")+"}")
	}
	return []byte(fmt.Sprintf(`{"externalSubmissionId":%q,"items":[%s]}`, ext, strings.Join(items, ",")))
}

// genCatalog is a generated catalog file's bytes.
func genCatalog(t *testing.T, opt gen.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gen.Write(&buf, opt); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// renameProduct is catalog with the product of sku renamed, every other
// member as it was.
func renameProduct(t *testing.T, catalog []byte, sku, name string) []byte {
	t.Helper()
	var file map[string]any
	if err := json.Unmarshal(catalog, &file); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range file["products"].([]any) {
		if p := p.(map[string]any); p["sku"] == sku {
			p["name"], found = name, true
		}
	}
	if !found {
		t.Fatalf("no product %s in the catalog", sku)
	}
	out, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeTemp writes data to a new file of a temporary folder.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
