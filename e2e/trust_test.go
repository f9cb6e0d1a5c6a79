package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestTrustPolicySurvivesRestart: a client earns its trust policy through
// reviewers' decisions on the real server, and its version's probation
// ends with 20 audits a reviewer confirms; revisions stored just before
// the server is killed with SIGKILL are accepted by the policy after the
// restart, within seconds.
func TestTrustPolicySurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	orgID, key := newOrgWithKey(t, dir, "Trust Co")
	cat := importCrashCatalog(t, dir, orgID)
	const email, password = "root@example.com", "trust-password-1"
	cli(t, dir, "superuser", "upsert", email, password)
	var active []string
	for _, sku := range cat.skus {
		if cat.active[sku] && len(active) < 1120 {
			active = append(active, sku)
		}
	}
	items := func(skus []string, confidence int) []byte {
		list := make([]map[string]any, len(skus))
		for i, sku := range skus {
			list[i] = map[string]any{"sku": sku, "confidence": confidence, "name": "Trusted name of " + sku}
		}
		b, _ := json.Marshal(map[string]any{"items": list})
		return b
	}

	srv := startServe(t, dir)
	token := signIn(t, srv.base, "_superusers", email, password)
	a := send(http.MethodPost, srv.base+submissionsPath, key, items(active[:20], 95))
	ids, err := parseIDs(a.body)
	if a.status != 200 || err != nil || len(ids) != 20 {
		t.Fatalf("earning submission: %d %v %s", a.status, err, tail(string(a.body)))
	}
	for _, id := range ids {
		r := pbJSON(http.MethodPatch, fmt.Sprintf("%s/api/collections/revisions/records/%d", srv.base, id), token, map[string]string{"status": "accepted"})
		if r.status != 200 {
			t.Fatalf("accept %d: %d %s", id, r.status, r.body)
		}
	}
	var client struct{ Items []struct{ ID string } }
	if err := json.Unmarshal(pbJSON(http.MethodGet, srv.base+"/api/collections/api_clients/records", token, nil).body, &client); err != nil || len(client.Items) != 1 {
		t.Fatalf("api clients: %v %+v", err, client)
	}
	p := pbJSON(http.MethodPost, srv.base+"/api/collections/trust_policies/records", token, map[string]any{
		"organization": orgID, "apiClient": client.Items[0].ID, "fields": []string{"name"}, "minConfidence": 80,
		"minReviewed": 20, "targetPrecision": 0.85, "enabled": true})
	var policy struct{ ID, State string }
	if p.status != 200 || json.Unmarshal(p.body, &policy) != nil || policy.State != "active" {
		t.Fatalf("create the policy: %d %s", p.status, p.body)
	}
	endProbation(t, srv.base, token, key, items(active[20:120], 90))

	// stored, then killed before the policy could take them all
	a = send(http.MethodPost, srv.base+submissionsPath, key, items(active[120:], 90))
	killed := time.Now()
	_ = srv.cmd.Process.Kill()
	<-srv.done
	ids, err = parseIDs(a.body)
	if a.status != 200 || err != nil || len(ids) != 1000 {
		t.Fatalf("submission before the kill: %d %v", a.status, err)
	}
	db := openReadOnly(t, dir)
	pending := func() int {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM revisions WHERE status = 'pending'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	left := pending()
	if left == 0 {
		t.Fatal("the policy decided every revision before the kill; nothing is left to test")
	}
	t.Logf("%d of 1000 revisions pending at the kill, %s after their submission was answered", left, time.Since(killed).Round(time.Millisecond))

	restarted := startServe(t, dir)
	started := time.Now()
	for pending() > 0 && time.Since(started) < 30*time.Second {
		time.Sleep(200 * time.Millisecond)
	}
	var byPolicy int
	if err := db.QueryRow(`SELECT COUNT(*) FROM revisions WHERE status = 'accepted' AND decidedBy = 'policy' AND policy = ?`, policy.ID).Scan(&byPolicy); err != nil {
		t.Fatal(err)
	}
	if n := pending(); n > 0 || byPolicy != 1100 {
		t.Fatalf("after the restart: %d pending, %d accepted by the policy, want 0 and 1100 (100 of probation, 1000 after the restart)", n, byPolicy)
	}
	t.Logf("decided after the restart within %s", time.Since(started).Round(100*time.Millisecond))
	restarted.stop()
}

// endProbation submits body (100 proposals of a model version the policy
// accepts) and confirms the policy's audits as they come, until 20 are
// closed: the version's probation is over, and the policy no longer waits
// for people.
func endProbation(t *testing.T, base, token, key string, body []byte) {
	t.Helper()
	if a := send(http.MethodPost, base+submissionsPath, key, body); a.status != 200 {
		t.Fatalf("probation's submission: %d %s", a.status, tail(string(a.body)))
	}
	closed := 0
	for deadline := time.Now().Add(60 * time.Second); closed < 20; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d audits closed in 60 s, want 20", closed)
		}
		var audits struct{ Items []struct{ ID int64 } }
		a := pbJSON(http.MethodGet, base+"/api/enrichment/review/audits?pageSize=100", token, nil)
		if a.status != 200 || json.Unmarshal(a.body, &audits) != nil {
			t.Fatalf("audits: %d %s", a.status, a.body)
		}
		for _, it := range audits.Items {
			r := pbJSON(http.MethodPost, fmt.Sprintf("%s/api/enrichment/review/audits/%d", base, it.ID), token, map[string]string{"audit": "confirmed"})
			if r.status != 200 {
				t.Fatalf("confirm audit %d: %d %s", it.ID, r.status, r.body)
			}
			closed++
		}
	}
}
