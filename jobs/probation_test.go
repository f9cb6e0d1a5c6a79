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
	"github.com/pocketbase/dbx"
)

// submitVersion submits n name proposals at confidence 95 of model sim
// version for the BULK products from first on, as client "both" of A.
func (w *trustWorld) submitVersion(version string, first, n int) []string {
	w.t.Helper()
	body := `{"model":{"name":"sim","version":"` + version + `"},"items":[` + strings.Join(bulk(first, n, 95, ""), ",") + `]}`
	rec := fixture.Send(w.h, http.MethodPost, "/api/enrichment/products/submissions", routes.KeyHeader, w.f.A.Keys["both"], body)
	if rec.Code != 200 {
		w.t.Fatalf("submit: %d %s", rec.Code, rec.Body)
	}
	var ids []string
	if err := w.app.DB().Select("id").From(schema.Revisions).
		Where(dbx.NewExp("json_extract(model, '$.version') = {:v}", dbx.Params{"v": version})).
		OrderBy("CAST(id AS INTEGER)").Column(&ids); err != nil {
		w.t.Fatal(err)
	}
	return ids[len(ids)-n:]
}

// pendingAudits lists the revisions whose audits wait, in id order.
func (w *trustWorld) pendingAudits() []string {
	w.t.Helper()
	var ids []string
	if err := w.app.DB().Select("id").From(schema.Revisions).Where(dbx.HashExp{"audit": enrichment.AuditPending}).
		OrderBy("CAST(id AS INTEGER)").Column(&ids); err != nil {
		w.t.Fatal(err)
	}
	return ids
}

// TestBadVersionSuspendsAlone: a version past its probation is accepted
// freely; a new version starts on probation, is held at 5 waiting audits,
// and its own audits suspend the policy once the upper bound over 5 of
// them is below the target, whatever the older version's audits say; the
// reason names the version, and the policy accepts nothing more.
func TestBadVersionSuspendsAlone(t *testing.T) {
	w := newTrustWorld(t)
	a := w.f.A
	w.earn(1, 20)
	p := w.policy(fmt.Sprintf(`{"organization":"%s","apiClient":"%d","fields":["name"],"minConfidence":80,
		"minReviewed":20,"targetPrecision":0.85,"auditRate":0.01,"enabled":true}`, a.Org, a.Clients["both"]))
	close := func(id, verdict string) {
		t.Helper()
		if rec := w.send(http.MethodPost, "/api/enrichment/review/audits/"+id, `{"audit":"`+verdict+`"}`); rec.Code != 200 {
			t.Fatalf("close %s: %d %s", id, rec.Code, rec.Body)
		}
	}

	// sim 1's probation: every 4th acceptance audited, all confirmed
	good := w.submitVersion("1", 101, 100)
	closed := 0
	for round := 0; closed < enrichment.ProbationAudits; round++ {
		if round > 30 {
			t.Fatalf("%d audits of sim 1 closed", closed)
		}
		w.trust.Step()
		for _, id := range w.pendingAudits() {
			close(id, enrichment.AuditConfirmed)
			closed++
		}
	}
	w.trust.Step()
	for _, id := range good {
		if got := w.status(id); !strings.HasPrefix(got, "accepted/policy/") {
			t.Fatalf("sim 1 revision %s after its probation: %s", id, got)
		}
	}
	w.trust.Refresh()
	if got := w.record(schema.TrustPolicies, p.Id).GetString("probation"); got != `[]` {
		t.Errorf("probation after 20 audits of sim 1: %s", got)
	}

	// sim 2: 17 accepted, the 1st, 5th, 9th, 13th and 17th audited
	bad := w.submitVersion("2", 201, 40)
	if n := w.trust.Step(); n != 17 || len(w.pendingAudits()) != 5 {
		t.Fatalf("sim 2: accepted %d with %d audits waiting, want 17 and 5", n, len(w.pendingAudits()))
	}
	// a person closes them one by one while the policy acts: while the
	// closed ones fall below the target by the suspension's test, the
	// waiting ones give the verdict (nothing accepted); otherwise the policy
	// accepts until 5 wait again; the fifth suspends it. Upper 99% bounds:
	// 0 of 1 84.4%, 1 of 2 92.7%, 1 of 3 83.3%, 2 of 4 87.9%, at a target of 85%
	verdicts := []string{enrichment.AuditReverted, enrichment.AuditConfirmed, enrichment.AuditReverted, enrichment.AuditConfirmed, enrichment.AuditReverted}
	acceptances := []int{0, 8, 0, 8, 0}
	for i, verdict := range verdicts {
		close(w.pendingAudits()[0], verdict)
		state := w.record(schema.TrustPolicies, p.Id).GetString("state")
		if want := map[bool]string{true: enrichment.PolicySuspended, false: enrichment.PolicyActive}[i == 4]; state != want {
			t.Fatalf("after %d closed audits of sim 2: %s, want %s", i+1, state, want)
		}
		if n := w.trust.Step(); n != acceptances[i] {
			t.Errorf("after %d closed audits of sim 2 the policy accepted %d, want %d", i+1, n, acceptances[i])
		}
	}
	reason := w.record(schema.TrustPolicies, p.Id).GetString("stateReason")
	if !strings.Contains(reason, "2 of the last 5 audits of model version sim 2 closed since the policy became active were confirmed (40.0%, upper 99% bound 80.9%)") {
		t.Errorf("reason %q", reason)
	}
	accepted := 0
	for _, id := range bad {
		if strings.HasPrefix(w.status(id), "accepted/policy/") || strings.HasPrefix(w.status(id), "reverted/policy/") {
			accepted++
		}
	}
	if accepted != 17+4*4 {
		t.Errorf("%d revisions of sim 2 accepted, want 33", accepted)
	}
}

// TestHeldBacklogAcceptedOnceProbationEnds: revisions that probation held
// back while their version's audits waited are all accepted by the step
// after the probation ends, not at the sweep's pace of a few hundred a
// step (a backlog then waited tens of seconds, and people decided it).
func TestHeldBacklogAcceptedOnceProbationEnds(t *testing.T) {
	w := newTrustWorld(t)
	a := w.f.A
	w.earn(1, 20)
	w.policy(fmt.Sprintf(`{"organization":"%s","apiClient":"%d","fields":["name","description"],"minConfidence":80,
		"minReviewed":20,"targetPrecision":0.85,"auditRate":0.01,"enabled":true}`, a.Org, a.Clients["both"]))
	w.trust.Draw = func() float64 { return 0.5 } // note: no random audits, only probation's
	// note: names and descriptions of 150 products, 300 revisions: more
	// than the 77 that probation lets through plus a sweep's 200
	backlog := w.submitVersion("1", 101, 150)
	described := make([]string, 150)
	for i := range described {
		described[i] = fmt.Sprintf(`{"sku":"BULK-%04d","confidence":95,"description":"Described %d"}`, 101+i, i)
	}
	body := `{"model":{"name":"sim","version":"1"},"items":[` + strings.Join(described, ",") + `]}`
	if rec := fixture.Send(w.h, http.MethodPost, "/api/enrichment/products/submissions", routes.KeyHeader, a.Keys["both"], body); rec.Code != 200 {
		t.Fatalf("submit descriptions: %d %s", rec.Code, rec.Body)
	}
	backlog = nil
	if err := w.app.DB().Select("id").From(schema.Revisions).Where(dbx.NewExp("json_extract(model, '$.version') = '1'")).
		OrderBy("CAST(id AS INTEGER)").Column(&backlog); err != nil || len(backlog) != 300 {
		t.Fatalf("%d pending revisions (%v), want 300", len(backlog), err)
	}
	closed := 0
	for round := 0; closed < enrichment.ProbationAudits; round++ {
		if round > 10 {
			t.Fatalf("%d audits closed", closed)
		}
		if n := w.trust.Step(); n != 4*enrichment.ProbationWaiting-3 && n != 4*enrichment.ProbationWaiting {
			t.Fatalf("round %d of probation accepted %d", round, n)
		}
		for _, id := range w.pendingAudits() {
			if rec := w.send(http.MethodPost, "/api/enrichment/review/audits/"+id, `{"audit":"confirmed"}`); rec.Code != 200 {
				t.Fatalf("close %s: %d %s", id, rec.Code, rec.Body)
			}
			closed++
		}
	}
	w.trust.Step()
	for _, id := range backlog {
		if got := w.status(id); !strings.HasPrefix(got, "accepted/policy/") {
			t.Fatalf("revision %s held back during probation is %s after it", id, got)
		}
	}
}
