package jobs_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
)

// TestAuditsSuspendPolicy: at auditRate 1 every acceptance waits in the
// audit queue; reviewers close audits through the records API and the
// reviewers' route; a run of reverted audits suspends the policy, which
// then accepts nothing until a reviewer disables and enables it.
func TestAuditsSuspendPolicy(t *testing.T) {
	w := newTrustWorld(t)
	a := w.f.A
	w.earn(1, 20)
	p := w.policy(fmt.Sprintf(`{"organization":"%s","apiClient":"%d","fields":["name"],"minConfidence":80,
		"minReviewed":20,"targetPrecision":0.9,"auditRate":1,"enabled":true}`, a.Org, a.Clients["both"]))
	if p.GetString("state") != enrichment.PolicyActive {
		t.Fatalf("state %s (%s)", p.GetString("state"), p.GetString("stateReason"))
	}
	ids := w.submit(a.Keys["both"], bulk(100, 12, 90, "")...)
	if n := w.trust.Step(); n != 12 {
		t.Fatalf("accepted %d, want 12", n)
	}
	for _, id := range ids {
		if got := w.status(id); got != "accepted/policy/pending" {
			t.Errorf("revision %s: %s", id, got)
		}
	}

	// the queue, through the records API and the reviewers' route
	filter := "/api/collections/revisions/records?filter=" + strings.ReplaceAll(`audit="pending"`, `"`, "%22")
	if rec := w.send(http.MethodGet, filter, ""); !strings.Contains(rec.Body.String(), `"totalItems":12`) {
		t.Errorf("records API audit queue: %d %.300s", rec.Code, rec.Body)
	}
	if rec := w.send(http.MethodGet, "/api/enrichment/review/audits?pageSize=5", ""); rec.Code != 200 ||
		!strings.Contains(rec.Body.String(), `"totalElements":12`) || !strings.Contains(rec.Body.String(), `"policy":`+p.Id) {
		t.Errorf("audit route: %d %.500s", rec.Code, rec.Body)
	}
	tokenB := fixture.ReviewerToken(t, w.app, string(w.f.B.Org))
	if rec := fixture.Send(w.h, http.MethodGet, "/api/enrichment/review/audits", "Authorization", tokenB, ""); !strings.Contains(rec.Body.String(), `"totalElements":0`) {
		t.Errorf("B's audit queue: %d %.300s", rec.Code, rec.Body)
	}
	if rec := fixture.Send(w.h, http.MethodPost, "/api/enrichment/review/audits/"+ids[0], "Authorization", tokenB, `{"audit":"confirmed"}`); rec.Code != 404 {
		t.Errorf("B closes A's audit: %d %s", rec.Code, rec.Body)
	}

	// closing: one plain string, alone, once
	records := "/api/collections/revisions/records/"
	for _, c := range []struct{ body, want string }{
		{`{"audit":["reverted"]}`, `"audit":{"code":"validation_invalid_audit","message":"Must be a single string."`},
		{`{"audit":"maybe"}`, `"audit":{"code":"validation_invalid_audit"`},
		{`{"audit":"confirmed","comment":"fine"}`, `"comment":{"code":"validation_audit_alone"`},
		{`{"audit":"pending","sku":"X"}`, `"sku":{"code":"validation_read_only"`},
	} {
		if rec := w.patch(records+ids[0], c.body); rec.Code != 400 || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("%s: %d %s", c.body, rec.Code, rec.Body)
		}
	}
	if rec := w.patch(records+ids[0], `{"audit+":"confirmed"}`); rec.Code != 400 || !strings.Contains(rec.Body.String(), "single string") {
		t.Errorf("audit+: %d %s", rec.Code, rec.Body)
	}
	if rec := w.patch(records+ids[0], `{"audit":"confirmed","auditedBy":"someone else"}`); rec.Code != 200 {
		t.Fatalf("confirm: %d %s", rec.Code, rec.Body)
	}
	confirmed := w.record(schema.Revisions, ids[0])
	if confirmed.GetString("audit") != "confirmed" || confirmed.GetString("auditedBy") != "reviewer:reviewer-"+string(a.Org)+"@example.com" ||
		confirmed.GetDateTime("auditedAt").IsZero() || confirmed.GetString("status") != "accepted" {
		t.Errorf("confirmed audit: %v", confirmed.FieldsData())
	}
	if rec := w.patch(records+ids[0], `{"audit":"reverted"}`); rec.Code != 400 || !strings.Contains(rec.Body.String(), "validation_no_audit") {
		t.Errorf("closing twice: %d %s", rec.Code, rec.Body)
	}
	if rec := w.patch(records+ids[1], `{"status":"rejected"}`); rec.Code != 400 {
		t.Errorf("deciding an accepted revision again: %d %s", rec.Code, rec.Body)
	}

	// a run of reverted audits: the tenth closed suspends the policy
	for i, id := range ids[1:10] {
		if i == 8 {
			if got := w.record(schema.TrustPolicies, p.Id).GetString("state"); got != enrichment.PolicyActive {
				t.Fatalf("suspended after %d closed audits", i+1)
			}
		}
		rec := w.send(http.MethodPost, "/api/enrichment/review/audits/"+id, `{"audit":"reverted"}`)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"audit":"reverted"`) {
			t.Fatalf("revert %s: %d %s", id, rec.Code, rec.Body)
		}
	}
	// a reverted audit rolled its revision back: the product has its name
	// from before, the metrics no longer count it as accepted
	if got := w.status(ids[1]); got != "reverted/policy/reverted" {
		t.Errorf("revision of a reverted audit: %s", got)
	}
	if got := w.record(schema.Products, store.FormatID(a.Products["BULK-0101"])).GetString("name"); got != "Bulk item 101" {
		t.Errorf("product of a reverted audit named %q, want its name before", got)
	}
	if got := w.status(ids[0]); got != "accepted/policy/confirmed" {
		t.Errorf("revision of a confirmed audit: %s", got)
	}
	metrics := fixture.Send(w.h, http.MethodGet, "/api/enrichment/acceptance-rate", routes.KeyHeader, a.Keys["both"], "").Body.String()
	if !strings.Contains(metrics, `"autoAccepted":3,`) || !strings.Contains(metrics, `"reverted":9,`) {
		t.Errorf("metrics after 9 reverted audits of 12 acceptances: %s", metrics)
	}
	p = w.record(schema.TrustPolicies, p.Id)
	if p.GetString("state") != enrichment.PolicySuspended || !strings.Contains(p.GetString("stateReason"), "1 of the last 10 closed audits were confirmed") {
		t.Fatalf("after 1 confirmed and 9 reverted: %s %q", p.GetString("state"), p.GetString("stateReason"))
	}
	if rec := w.send(http.MethodGet, "/api/enrichment/review/audits", ""); !strings.Contains(rec.Body.String(), `"totalElements":2`) {
		t.Errorf("audit queue after closing 10: %.300s", rec.Body)
	}

	// suspended: nothing accepted, measurement notwithstanding
	more := w.submit(a.Keys["both"], bulk(120, 2, 95, "")...)
	w.trust.Refresh()
	if n := w.trust.Step(); n != 0 || w.status(more[0]) != "pending//" {
		t.Errorf("a suspended policy accepted %d", n)
	}
	if got := w.record(schema.TrustPolicies, p.Id).GetString("state"); got != enrichment.PolicySuspended {
		t.Errorf("a refresh lifted the suspension: %s", got)
	}
	// enabling it again without disabling changes nothing
	w.patch("/api/collections/trust_policies/records/"+p.Id, `{"enabled":true}`)
	if got := w.record(schema.TrustPolicies, p.Id).GetString("state"); got != enrichment.PolicySuspended {
		t.Errorf("enabled again without disabling: %s", got)
	}
	// disabled, then enabled: measured again, its old audits no longer count
	w.patch("/api/collections/trust_policies/records/"+p.Id, `{"enabled":false}`)
	if got := w.record(schema.TrustPolicies, p.Id); got.GetString("state") != enrichment.PolicyLearning || got.GetString("stateReason") != "Disabled: the policy accepts nothing." {
		t.Errorf("disabled: %s %q", got.GetString("state"), got.GetString("stateReason"))
	}
	w.patch("/api/collections/trust_policies/records/"+p.Id, `{"enabled":true}`)
	if got := w.record(schema.TrustPolicies, p.Id).GetString("state"); got != enrichment.PolicyActive {
		t.Errorf("enabled again: %s", got)
	}
	if n := w.trust.Step(); n != 2 {
		t.Errorf("accepted %d after enabling again, want 2", n)
	}
	w.send(http.MethodPost, "/api/enrichment/review/audits/"+ids[10], `{"audit":"reverted"}`)
	if got := w.record(schema.TrustPolicies, p.Id).GetString("state"); got != enrichment.PolicyActive {
		t.Errorf("an audit after enabling again counted the old ones: %s", got)
	}

	// the revisions it decided name the policy: it is disabled, never deleted
	su := fixture.SuperuserToken(t, w.app)
	rec := fixture.Send(w.h, http.MethodDelete, "/api/collections/trust_policies/records/"+p.Id, "Authorization", su, "")
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "disable it instead") {
		t.Errorf("delete a policy that decided revisions: %d %s", rec.Code, rec.Body)
	}
}
