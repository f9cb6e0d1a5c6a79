package jobs_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/hooks"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/tools/router"
)

// TestAuditsSuspendPolicy: at auditRate 1 every acceptance waits in the
// audit queue, and probation accepts none of the version while 5 of its
// audits wait; reviewers close audits through the records API and the
// reviewers' route; reverted audits suspend the policy once the upper
// bound over 5 of them is below the target, and it then accepts nothing
// until a reviewer disables and enables it.
func TestAuditsSuspendPolicy(t *testing.T) {
	w := newTrustWorld(t)
	a := w.f.A
	w.earn(1, 60) // 60 of 60 right: the bound (95.7%) stays above 0.85 with 4 reverted audits counted
	p := w.policy(fmt.Sprintf(`{"organization":"%s","apiClient":"%d","fields":["name"],"minConfidence":80,
		"minReviewed":20,"targetPrecision":0.85,"auditRate":1,"enabled":true}`, a.Org, a.Clients["both"]))
	if p.GetString("state") != enrichment.PolicyActive {
		t.Fatalf("state %s (%s)", p.GetString("state"), p.GetString("stateReason"))
	}
	ids := w.submit(a.Keys["both"], bulk(100, 12, 90, "")...)
	if n := w.trust.Step(); n != 5 {
		t.Fatalf("accepted %d, want 5 (then 5 audits of the version wait)", n)
	}
	for i, id := range ids {
		want := "accepted/policy/pending"
		if i >= 5 {
			want = "pending//"
		}
		if got := w.status(id); got != want {
			t.Errorf("revision %d: %s, want %s", i, got, want)
		}
	}
	w.trust.Refresh()
	if got := w.record(schema.TrustPolicies, p.Id).GetString("probation"); got != `[{"version":"none","accepted":5,"waiting":5,"closed":0,"confirmed":0}]` {
		t.Errorf("probation %s", got)
	}

	// the queue, through the records API and the reviewers' route
	filter := "/api/collections/revisions/records?filter=" + strings.ReplaceAll(`audit="pending"`, `"`, "%22")
	if rec := w.send(http.MethodGet, filter, ""); !strings.Contains(rec.Body.String(), `"totalItems":5`) {
		t.Errorf("records API audit queue: %d %.300s", rec.Code, rec.Body)
	}
	if rec := w.send(http.MethodGet, "/api/enrichment/review/audits?pageSize=5", ""); rec.Code != 200 ||
		!strings.Contains(rec.Body.String(), `"totalElements":5`) || !strings.Contains(rec.Body.String(), `"policy":`+p.Id) {
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
	if confirmed.GetString("audit") != "confirmed" || confirmed.GetString("auditedBy") != fixture.ReviewerID(t, w.app, string(a.Org)) ||
		confirmed.GetDateTime("auditedAt").IsZero() || confirmed.GetString("status") != "accepted" {
		t.Errorf("confirmed audit: %v", confirmed.FieldsData())
	}
	if rec := w.patch(records+ids[0], `{"audit":"reverted"}`); rec.Code != 400 || !strings.Contains(rec.Body.String(), "validation_no_audit") {
		t.Errorf("closing twice: %d %s", rec.Code, rec.Body)
	}
	if rec := w.patch(records+ids[1], `{"status":"rejected"}`); rec.Code != 400 {
		t.Errorf("deciding an accepted revision again: %d %s", rec.Code, rec.Body)
	}
	// one audit closed, 4 wait: one more is accepted (the 6th, audited at rate 1)
	if n := w.trust.Step(); n != 1 || w.status(ids[5]) != "accepted/policy/pending" {
		t.Errorf("after closing one audit: accepted %d, %s", n, w.status(ids[5]))
	}

	// reverted audits: the fifth closed (1 of 5 confirmed: upper 99% bound
	// 68.4%) suspends the policy
	for i, id := range ids[1:5] {
		if i == 3 {
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
	if by, want := w.record(schema.Revisions, ids[1]).GetString("revertedBy"), fixture.ReviewerID(t, w.app, string(a.Org)); by != want {
		t.Errorf("revision of a reverted audit: revertedBy %q, want the reviewer's id %s", by, want)
	}
	if got := w.record(schema.Products, store.FormatID(a.Products["BULK-0101"])).GetString("name"); got != "Bulk item 101" {
		t.Errorf("product of a reverted audit named %q, want its name before", got)
	}
	if got := w.status(ids[0]); got != "accepted/policy/confirmed" {
		t.Errorf("revision of a confirmed audit: %s", got)
	}
	metrics := fixture.Send(w.h, http.MethodGet, "/api/enrichment/acceptance-rate", routes.KeyHeader, a.Keys["both"], "").Body.String()
	if !strings.Contains(metrics, `"autoAccepted":2,`) || !strings.Contains(metrics, `"reverted":4,`) {
		t.Errorf("metrics after 4 reverted audits of 6 acceptances: %s", metrics)
	}
	p = w.record(schema.TrustPolicies, p.Id)
	if p.GetString("state") != enrichment.PolicySuspended ||
		!strings.Contains(p.GetString("stateReason"), "1 of the last 5 audits of model version none closed since the policy became active were confirmed (20.0%, upper 99% bound 68.4%), below the target 85.0%") {
		t.Fatalf("after 1 confirmed and 4 reverted: %s %q", p.GetString("state"), p.GetString("stateReason"))
	}
	if rec := w.send(http.MethodGet, "/api/enrichment/review/audits", ""); !strings.Contains(rec.Body.String(), `"totalElements":1`) {
		t.Errorf("audit queue after closing 5: %.300s", rec.Body)
	}
	// the closed audits are measured: 60 names right, 1 confirmed, 4 reverted
	w.trust.Refresh()
	if p := w.record(schema.TrustPolicies, p.Id); p.GetInt("measuredReviewed") != 65 || p.GetFloat("measuredPrecision") != 0.9385 {
		t.Errorf("measured %d at %v, want 65 at 0.9385 (61 of 65)", p.GetInt("measuredReviewed"), p.GetFloat("measuredPrecision"))
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
	// one audit of the version from before still waits: 4 more are accepted
	if n := w.trust.Step(); n != 4 {
		t.Errorf("accepted %d after enabling again, want 4", n)
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

// TestDecisionAfterPolicyAudited: a person's decision on a revision read
// before the policy accepted it and drew it for audit is refused as final,
// not taken for an audit's close.
func TestDecisionAfterPolicyAudited(t *testing.T) {
	w := newTrustWorld(t)
	a := w.f.A
	w.earn(1, 20)
	w.policy(fmt.Sprintf(`{"organization":"%s","apiClient":"%d","fields":["name"],"minConfidence":80,
		"minReviewed":20,"targetPrecision":0.85,"auditRate":1,"enabled":true}`, a.Org, a.Clients["both"]))
	ids := w.submit(a.Keys["both"], bulk(100, 1, 90, "")...)
	read := w.record(schema.Revisions, ids[0]) // as a person's request reads it, pending
	if n := w.trust.Step(); n != 1 || w.status(ids[0]) != "accepted/policy/pending" {
		t.Fatalf("the policy accepted %d: %s", n, w.status(ids[0]))
	}
	read.Set("status", "rejected")
	err := w.app.Save(read)
	var apiErr *router.ApiError
	if !errors.As(err, &apiErr) || !strings.Contains(fmt.Sprint(apiErr.Data), "validation_decision_final") {
		t.Errorf("a decision on a revision the policy accepted meanwhile: %v", err)
	}
	if got := w.status(ids[0]); got != "accepted/policy/pending" {
		t.Errorf("after the refused decision: %s", got)
	}
}

// TestSuspensionNotOverwritten: a policy record read before an audit
// suspended the policy (a reviewer's edit, the worker's refresh) does not
// lift the suspension when it is saved.
func TestSuspensionNotOverwritten(t *testing.T) {
	w := newTrustWorld(t)
	a := w.f.A
	w.earn(1, 20)
	p := w.policy(fmt.Sprintf(`{"organization":"%s","apiClient":"%d","fields":["name"],"minConfidence":80,
		"minReviewed":20,"targetPrecision":0.85,"enabled":true}`, a.Org, a.Clients["both"]))
	stale := w.record(schema.TrustPolicies, p.Id)
	if stale.GetString("state") != enrichment.PolicyActive {
		t.Fatalf("state %s", stale.GetString("state"))
	}
	if err := hooks.SuspendPolicy(w.app, p.Id, "Suspended: a test.", time.Now()); err != nil {
		t.Fatal(err)
	}
	stale.Set("minConfidence", 81)
	if err := w.app.Save(stale); err != nil {
		t.Fatal(err)
	}
	w.trust.Refresh()
	if got := w.record(schema.TrustPolicies, p.Id); got.GetString("state") != enrichment.PolicySuspended || got.GetInt("minConfidence") != 81 {
		t.Errorf("after saving a record read before the suspension: %s, minConfidence %d", got.GetString("state"), got.GetInt("minConfidence"))
	}
}
