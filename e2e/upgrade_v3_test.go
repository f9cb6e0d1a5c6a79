package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
)

// TestUpgradeFromVersion3 builds Version 3, lets it make a data folder with
// a trust policy earned under its rules (a share of fields applied, where a
// field superseded before the decision counted against the vendor), the
// policy's acceptances and audits, some closed, and people's decisions;
// then starts this release on it. Everything read through the API is as
// before or only extended, and the policy is measured again by this
// release's rules: the superseded fields no longer count, the closed audits
// do, and the lower bound decides its state.
func TestUpgradeFromVersion3(t *testing.T) {
	const email, password = "root@example.com", "upgrade-password-3"
	old := buildRelease(t, version3Release)
	dir := t.TempDir()
	var org, key struct {
		ID  int64  `json:"id"`
		Key string `json:"key"`
	}
	oldCLI(t, old, dir, &org, "org", "create", "--name", "Alpha", "--json")
	oldCLI(t, old, dir, nil, "import", "--org", fmt.Sprint(org.ID),
		writeTemp(t, "a.json", genCatalog(t, gen.Options{Products: 60, Templates: 2, Brands: 3, Seed: 31})))
	oldCLI(t, old, dir, &key, "apikey", "create", "--org", fmt.Sprint(org.ID), "--scopes", "catalog:read,catalog:submit",
		"--rate-limit", "0", "--name", "vendor", "--json")
	oldCLI(t, old, dir, nil, "superuser", "upsert", email, password)

	srv := startServeOf(t, old, dir)
	api, records := srv.base+"/api/enrichment", srv.base+"/api/collections/"
	su := signIn(t, srv.base, "_superusers", email, password)
	skus := exportSKUs(t, api, key.Key, 32)
	submit := func(items ...map[string]any) []int64 {
		t.Helper()
		for _, it := range items {
			it["confidence"] = 95
		}
		body, _ := json.Marshal(map[string]any{"model": map[string]string{"name": "sim", "version": "1"}, "items": items})
		a := send(http.MethodPost, api+"/products/submissions", key.Key, body)
		ids, err := parseIDs(a.body)
		if a.status != 200 || err != nil || len(ids) != len(items) {
			t.Fatalf("submission to Version 3: %d %v %s", a.status, err, a.body)
		}
		return ids
	}
	decide := func(id int64, body string) {
		t.Helper()
		if a := pbJSON(http.MethodPatch, fmt.Sprintf("%srevisions/records/%d", records, id), su, json.RawMessage(body)); a.status != 200 {
			t.Fatalf("decide %d on Version 3 (%s): %d %s", id, body, a.status, a.body)
		}
	}
	named := func(from, to int, fields ...string) []map[string]any {
		var out []map[string]any
		for _, sku := range skus[from:to] {
			it := map[string]any{"sku": sku}
			for _, f := range fields {
				it[f] = fmt.Sprintf("Upgraded %s of %s", f, sku)
			}
			out = append(out, it)
		}
		return out
	}
	// 24 names accepted as proposed; 2 names and descriptions whose
	// descriptions a newer proposal superseded, accepted (their names); the
	// 2 newer descriptions rejected
	for _, id := range submit(named(0, 24, "name")...) {
		decide(id, `{"status":"accepted"}`)
	}
	partly := submit(named(24, 26, "name", "description")...)
	newer := submit(named(24, 26, "description")...)
	for i := range partly {
		decide(partly[i], `{"status":"accepted"}`)
		decide(newer[i], `{"status":"rejected","reason":"inaccurate"}`)
	}
	// Version 3's measurement: 26 of 30 fields clean (the superseded
	// descriptions counted against the vendor), 86.7% ≥ 85%: active
	var client struct{ Items []struct{ ID string } }
	if err := json.Unmarshal(pbJSON(http.MethodGet, records+"api_clients/records", su, nil).body, &client); err != nil || len(client.Items) != 1 {
		t.Fatalf("api clients: %v %+v", err, client)
	}
	p := pbJSON(http.MethodPost, records+"trust_policies/records", su, map[string]any{"organization": fmt.Sprint(org.ID),
		"apiClient": client.Items[0].ID, "fields": []string{"name", "description"}, "minConfidence": 80, "targetPrecision": 0.85,
		"minReviewed": 20, "auditRate": 1, "enabled": true})
	var policy map[string]any
	if p.status != 200 || json.Unmarshal(p.body, &policy) != nil || policy["state"] != "active" || policy["measuredPrecision"] != 0.8667 {
		t.Fatalf("the policy on Version 3: %d %s", p.status, p.body)
	}
	// the policy accepts 6 names, each audited; 3 audits confirmed, 1
	// reverted (too few for Version 3 to judge), 2 left waiting
	auto := submit(named(26, 32, "name")...)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var audits struct{ TotalElements int }
		a := pbJSON(http.MethodGet, api+"/review/audits", su, nil)
		if json.Unmarshal(a.body, &audits) == nil && audits.TotalElements == len(auto) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Version 3's policy did not accept and audit the 6 revisions: %s", a.body)
		}
	}
	for i, verdict := range []string{"confirmed", "confirmed", "reverted", "confirmed"} {
		if a := pbJSON(http.MethodPost, fmt.Sprintf("%s/review/audits/%d", api, auto[i]), su, map[string]string{"audit": verdict}); a.status != 200 {
			t.Fatalf("close audit %d on Version 3: %d %s", auto[i], a.status, a.body)
		}
	}
	policyURL := records + "trust_policies/records/" + fmt.Sprint(policy["id"])
	read := func(url, token string) any {
		t.Helper()
		a := pbJSON(http.MethodGet, url, token, nil)
		var v any
		if a.status != 200 || json.Unmarshal(a.body, &v) != nil {
			t.Fatalf("%s: %d %s", url, a.status, a.body)
		}
		return v
	}
	paths := map[string]string{"revisions": "/revisions?pageSize=500", "metrics": "/acceptance-rate"}
	before := map[string]any{}
	for name, path := range paths {
		status, body := get(api+path, key.Key)
		var v any
		if status != 200 || json.Unmarshal(body, &v) != nil {
			t.Fatalf("%s on Version 3: %d %s", name, status, body)
		}
		before[name] = v
	}
	before["audits"] = read(api+"/review/audits", su)
	before["policy"] = read(policyURL, su)
	// who decided and who closed an audit, as Version 3 wrote them
	actors := []struct {
		revision int64
		field    string
	}{{partly[0], "reviewer"}, {newer[0], "reviewer"}, {auto[0], "auditedBy"}, {auto[2], "auditedBy"}}
	for _, a := range actors {
		rev := read(fmt.Sprintf("%srevisions/records/%d", records, a.revision), su).(map[string]any)
		if rev[a.field] != "superuser:"+email {
			t.Fatalf("revision %d's %s on Version 3: %v", a.revision, a.field, rev[a.field])
		}
	}
	srv.stop()

	// this release
	srv = startServe(t, dir)
	su = signIn(t, srv.base, "_superusers", email, password)
	api, records = srv.base+"/api/enrichment", srv.base+"/api/collections/"
	policyURL = records + "trust_policies/records/" + fmt.Sprint(policy["id"])
	after := map[string]any{"audits": read(api+"/review/audits", su), "policy": read(policyURL, su)}
	for name, path := range paths {
		status, body := get(api+path, key.Key)
		var v any
		if status != 200 || json.Unmarshal(body, &v) != nil {
			t.Fatalf("%s after the upgrade: %d %s", name, status, body)
		}
		after[name] = v
	}
	// a rolled-back revision's closedAt is now its rollback's moment (Version
	// 3 kept the decision's): the vendor polling by since sees the rollback
	reverted := read(fmt.Sprintf("%srevisions/records/%d", records, auto[2]), su).(map[string]any)
	itemOf := func(page any) map[string]any {
		for _, it := range page.(map[string]any)["items"].([]any) {
			if item := it.(map[string]any); fmt.Sprint(item["id"]) == fmt.Sprint(auto[2]) {
				return item
			}
		}
		t.Fatalf("revision %d is not listed: %v", auto[2], page)
		return nil
	}
	if item := itemOf(after["revisions"]); item["status"] != "reverted" || reverted["closedAt"] != reverted["revertedAt"] ||
		!sameInstant(fmt.Sprint(item["closedAt"]), fmt.Sprint(reverted["revertedAt"])) {
		t.Errorf("the rolled-back revision after the upgrade: %v (its record's closedAt %v, revertedAt %v)", item, reverted["closedAt"], reverted["revertedAt"])
	}
	delete(itemOf(before["revisions"]), "closedAt")
	// the measurement and state are computed again; every other field is kept
	recomputed := []string{"measuredPrecision", "measuredReviewed", "state", "stateReason", "stateChangedAt", "updated"}
	for _, name := range recomputed {
		delete(before["policy"].(map[string]any), name)
	}
	for name := range before {
		got := after[name]
		if name == "policy" {
			got = withoutKeys(got.(map[string]any), recomputed)
		}
		for _, d := range extends(before[name], got, name) {
			t.Errorf("after the upgrade: %s", d)
		}
	}
	// 24 names, 2 names whose descriptions were superseded (not counted),
	// 2 descriptions rejected, 3 audits confirmed and 1 reverted: 29 of 32
	// right, 90.6% (0.9063), lower bound 78.7% < 85%: learning
	now := after["policy"].(map[string]any)
	if now["measuredPrecision"] != 0.9063 || now["measuredReviewed"] != 32.0 || now["precisionLowerBound"] != 0.7872 ||
		now["state"] != "learning" || !strings.Contains(fmt.Sprint(now["stateReason"]), "29 of 32 fields right, lower 95% bound 78.7%") {
		t.Errorf("the policy after the upgrade: %v", now)
	}
	// an audit closed now is counted at once: 30 of 33
	if a := pbJSON(http.MethodPost, fmt.Sprintf("%s/review/audits/%d", api, auto[4]), su, map[string]string{"audit": "confirmed"}); a.status != 200 {
		t.Fatalf("close an audit after the upgrade: %d %s", a.status, a.body)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		p := read(policyURL, su).(map[string]any)
		if p["measuredReviewed"] == 33.0 && p["measuredPrecision"] == 0.9091 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the policy after an audit closed since the upgrade: %v", p)
		}
	}
	// they hold the superuser's record id now, as this release records them
	var superusers struct{ Items []struct{ ID string } }
	if err := json.Unmarshal(pbJSON(http.MethodGet, records+"_superusers/records", su, nil).body, &superusers); err != nil || len(superusers.Items) != 1 {
		t.Fatalf("superusers: %v %+v", err, superusers)
	}
	for _, a := range actors {
		rev := read(fmt.Sprintf("%srevisions/records/%d", records, a.revision), su).(map[string]any)
		if rev[a.field] != superusers.Items[0].ID {
			t.Errorf("revision %d's %s after the upgrade: %v, want the superuser's id %s", a.revision, a.field, rev[a.field], superusers.Items[0].ID)
		}
	}
	checkGapsAgreeWithExport(t, api, key.Key)
	srv.stop()
	srv.checkNoSQLEcho()
}

// checkGapsAgreeWithExport: the gaps index an upgrade filled lists exactly
// the exported products with a gap, with the same completeness and gaps.
func checkGapsAgreeWithExport(t *testing.T, api, key string) {
	t.Helper()
	type item struct {
		SKU          string   `json:"sku"`
		Completeness *int     `json:"completeness"`
		Gaps         []string `json:"gaps"`
	}
	var export, gaps struct{ Items []item }
	if err := json.Unmarshal(mustGet(t, api+"/products?pageSize=500", key, http.StatusOK), &export); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mustGet(t, api+"/gaps?pageSize=500", key, http.StatusOK), &gaps); err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, g := range gaps.Items {
		listed[g.SKU] = fmt.Sprint(*g.Completeness, g.Gaps)
	}
	withGaps := 0
	for _, p := range export.Items {
		if p.Completeness == nil {
			t.Fatalf("exported %s without completeness", p.SKU)
		}
		if len(p.Gaps) == 0 {
			continue
		}
		withGaps++
		if got, want := listed[p.SKU], fmt.Sprint(*p.Completeness, p.Gaps); got != want {
			t.Errorf("gaps list of %s: %q, export %q", p.SKU, got, want)
		}
	}
	if withGaps == 0 || withGaps != len(gaps.Items) {
		t.Errorf("%d exported products with gaps, %d in the gaps list", withGaps, len(gaps.Items))
	}
}

// withoutKeys is m without the keys named.
func withoutKeys(m map[string]any, keys []string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// sameInstant tells whether two times, as the API (ISO 8601) and the
// records API ("2006-01-02 15:04:05.000Z") write them, are one moment.
func sameInstant(a, b string) bool {
	parse := func(s string) (time.Time, bool) {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.000Z"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
	ta, okA := parse(a)
	tb, okB := parse(b)
	return okA && okB && ta.Equal(tb)
}
