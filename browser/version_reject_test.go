package browser

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/jobs"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
)

// submitModel submits name proposals at confidence 95 for the BULK products
// first to first+n-1, from model NAME/VERSION, with tenant A's key of kind.
func (s *service) submitModel(kind, model string, first, n int) []string {
	s.t.Helper()
	name, version, _ := strings.Cut(model, "/")
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"sku":"BULK-%04d","confidence":95,"name":"%s named %d"}`, first+i, model, first+i)
	}
	return s.submitJSON(s.f.A.Keys[kind], `{"model":{"name":"`+name+`","version":"`+version+`"},"items":[`+strings.Join(items, ",")+`]}`)
}

// TestRejectVersionByFilter: the queue filtered by model and version
// offers to reject all of them; one click rejects every one in a single
// request, and the other version's revisions stay pending.
func TestRejectVersionByFilter(t *testing.T) {
	s := newService(t)
	s.addReviewer(s.f.A.Org, "ann@alpha.example")
	good := s.submitModel("both", "sim/1", 1, 2)
	bad := s.submitModel("both", "sim/2", 3, 3)

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#triage-box summary")))
	waitFor(t, ctx, "the offer hidden on an unfiltered queue", queueIdle+` && document.querySelector('#version-reject').hidden`)
	typeInto(t, ctx, "#f-model", "sim")
	typeInto(t, ctx, "#f-model-version", "2")
	button := `document.querySelector('#version-reject-button')`
	waitFor(t, ctx, "the offer", queueIdle+` && !document.querySelector('#version-reject').hidden && `+button+`.textContent === 'Reject all 3 of model sim 2'`)
	screenshot(t, ctx, "version-reject")
	const decisions = "POST /api/enrichment/review/decisions"
	before := s.statuses.requests(decisions)
	click(t, ctx, button)
	waitFor(t, ctx, "the answer", `document.querySelector('#version-reject-status').textContent === 'Rejected 3 of model sim 2.'`)
	waitFor(t, ctx, "the queue emptied", queueIdle+` && document.querySelectorAll('#queue-list .item').length === 0 && document.querySelector('#version-reject').hidden`)
	if n := s.statuses.requests(decisions) - before; n != 1 {
		t.Errorf("%d group decision requests, want 1", n)
	}
	for _, id := range bad {
		if r := s.record("revisions", id); r.GetString("status") != enrichment.StatusRejected || r.GetString("reason") != "inaccurate" {
			t.Errorf("sim 2 revision %s: %s %q", id, r.GetString("status"), r.GetString("reason"))
		}
	}
	for _, id := range good {
		if got := s.record("revisions", id).GetString("status"); got != enrichment.StatusPending {
			t.Errorf("sim 1 revision %s: %s", id, got)
		}
	}
}

// TestTrustTabBoundsAndProbation: the trust tab shows a policy's lower
// bound, the model versions on probation with their audits, and, once
// reverted audits suspend it, why, naming the version.
func TestTrustTabBoundsAndProbation(t *testing.T) {
	s := newService(t)
	a := s.f.A
	for _, id := range s.submitModel("both", "sim/1", 1, 20) {
		s.decide(id, "accepted")
	}
	policy := s.save("trust_policies", map[string]any{"organization": string(a.Org), "apiClient": store.FormatID(a.Clients["both"]),
		"fields": []string{"name"}, "minConfidence": 90, "targetPrecision": 0.85, "minReviewed": 20, "auditRate": 1, "enabled": true})
	bad := s.submitModel("both", "sim/2", 21, 7)
	// note: the service's own worker may act too; probation holds the version at 5 waiting audits either way
	worker := jobs.NewTrust(s.app)
	worker.Refresh()
	for range 50 {
		worker.Step()
		if s.record("revisions", bad[4]).GetString("audit") == enrichment.AuditPending {
			break
		}
	}
	worker.Refresh()
	if got := s.record("trust_policies", policy).GetString("probation"); got != `[{"version":"sim 2","accepted":5,"waiting":5,"closed":0,"confirmed":0}]` {
		t.Fatalf("probation %s", got)
	}
	s.addReviewer(a.Org, "ann@alpha.example")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-trust")))
	row := `document.querySelector('table.policies tbody tr[data-id="` + policy + `"]')`
	waitFor(t, ctx, "the policy", row+` !== null`)
	if got := eval[string](t, ctx, row+`.querySelector('.bound').textContent`); got != "88.1 %" {
		t.Errorf("lower bound shown %q, want 88.1 %% (20 of 20 right)", got)
	}
	if got := eval[string](t, ctx, row+`.querySelector('.probation').textContent`); got != "sim 2: 0 of 20 audits closed, 5 waiting, 5 accepted" {
		t.Errorf("probation shown %q", got)
	}

	ann := s.token("ann@alpha.example")
	for _, id := range bad[:5] {
		s.call(http.MethodPost, "/api/enrichment/review/audits/"+id, ann, `{"audit":"reverted"}`, http.StatusOK, nil)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-queue")), chromedp.Click(chromedp.CSS("#tab-trust")))
	waitFor(t, ctx, "the policy suspended", row+`?.querySelector('.state').textContent.startsWith('suspended')`)
	reason := eval[string](t, ctx, row+`.querySelector('.state .reason').textContent`)
	if !strings.Contains(reason, "0 of the last 5 audits of model version sim 2") || !strings.Contains(reason, "upper 99% bound 52.0%") {
		t.Errorf("reason shown %q", reason)
	}
	screenshot(t, ctx, "trust-suspended")
}
