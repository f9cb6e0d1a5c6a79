package browser

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/jobs"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/chromedp/chromedp"
	"github.com/pocketbase/pocketbase/core"
)

// TestTrustPolicies: a reviewer creates a policy in the trust view and
// edits it; the list shows its state and measured precision as the
// service set them.
func TestTrustPolicies(t *testing.T) {
	s := newService(t)
	a := s.f.A
	s.addReviewer(a.Org, "ann@alpha.example")
	client := store.FormatID(a.Clients["both"])

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-trust")))
	waitFor(t, ctx, "the policies", `document.querySelector('#policies-list p, #policies-list table') !== null`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#policy-new")))
	pick(t, ctx, "#policy-apiClient", client)
	typeInto(t, ctx, "#policy-minConfidence", "90")
	click(t, ctx, `document.querySelector('#policy-form input[name=fields][value=slug]')`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#policy-save")))
	waitFor(t, ctx, "the new policy listed", `document.querySelectorAll('table.policies tbody tr').length === 1`)

	ann := s.token("ann@alpha.example")
	var list struct {
		Items []struct {
			ID                string   `json:"id"`
			APIClient         string   `json:"apiClient"`
			Fields            []string `json:"fields"`
			MinConfidence     int      `json:"minConfidence"`
			Enabled           bool     `json:"enabled"`
			State             string   `json:"state"`
			MeasuredPrecision float64  `json:"measuredPrecision"`
		} `json:"items"`
	}
	s.call(http.MethodGet, "/api/collections/trust_policies/records", ann, "", http.StatusOK, &list)
	if len(list.Items) != 1 {
		t.Fatalf("%d policies stored, want 1", len(list.Items))
	}
	p := list.Items[0]
	if p.APIClient != client || !slices.Equal(p.Fields, []string{"name", "slug", "description"}) || p.MinConfidence != 90 || !p.Enabled {
		t.Errorf("stored policy %+v", p)
	}
	row := `document.querySelector('table.policies tbody tr[data-id="` + p.ID + `"]')`
	if got := eval[string](t, ctx, row+`.querySelector('.state').textContent`); !strings.HasPrefix(got, p.State) || p.State == "" {
		t.Errorf("state shown %q, stored %q", got, p.State)
	}
	screenshot(t, ctx, "policies")

	click(t, ctx, row+`.querySelector('.edit-policy')`)
	waitFor(t, ctx, "the form", `document.querySelector('#policy-minConfidence')?.value === '90'`)
	typeInto(t, ctx, "#policy-minConfidence", "85")
	click(t, ctx, `document.querySelector('#policy-enabled')`)
	do(t, ctx, chromedp.Click(chromedp.CSS("#policy-save")))
	waitFor(t, ctx, "the form closed", `document.querySelector('#policy-form') === null`)
	r := s.record("trust_policies", p.ID)
	if r.GetInt("minConfidence") != 85 || r.GetBool("enabled") {
		t.Errorf("after editing: minConfidence %d, enabled %v", r.GetInt("minConfidence"), r.GetBool("enabled"))
	}
	// note: the table is drawn again once the policy is read back
	waitFor(t, ctx, "the policy shown disabled", row+`?.querySelector('.state').textContent.startsWith('disabled')`)
}

// TestAuditQueue: revisions a trust policy accepted and drew for audit
// wait in the trust view's audit queue; Confirm closes one as confirmed,
// Revert rolls the other back, its product's value before restored.
func TestAuditQueue(t *testing.T) {
	s := newService(t)
	a := s.f.A
	both := a.Clients["both"]
	// the client's record: 20 revisions a person accepted as proposed
	var history []proposal
	for i := range 20 {
		history = append(history, proposal{fmt.Sprintf("BULK-%04d", i+1), 95, enrichment.Fields{Name: ptr(fmt.Sprintf("Named %d", i))}})
	}
	for _, id := range s.submit(a, "both", history...) {
		s.decide(id, "accepted")
	}
	policy := s.save("trust_policies", map[string]any{"organization": string(a.Org), "apiClient": store.FormatID(both),
		"fields": []string{"name"}, "minConfidence": 90, "targetPrecision": 0.85, "minReviewed": 20, "auditRate": 1, "enabled": true})
	ids := s.submit(a, "both",
		proposal{"BULK-0021", 95, enrichment.Fields{Name: ptr("Twenty-one, by the policy")}},
		proposal{"BULK-0022", 95, enrichment.Fields{Name: ptr("Twenty-two, by the policy")}})
	// note: the service's own worker may act first; every acceptance is audited (auditRate 1) either way
	worker := jobs.NewTrust(s.app)
	worker.Refresh()
	worker.Step()
	deadline := time.Now().Add(20 * time.Second)
	for _, id := range ids {
		for r := s.record("revisions", id); r.GetString("audit") != "pending"; r = s.record("revisions", id) {
			if time.Now().After(deadline) {
				p := s.record("trust_policies", policy)
				t.Fatalf("revision %s: %s, audit %q; policy %s %q (%s)", id, r.GetString("status"), r.GetString("audit"),
					policy, p.GetString("state"), p.GetString("stateReason"))
			}
			time.Sleep(50 * time.Millisecond)
			worker.Step()
		}
	}
	s.addReviewer(a.Org, "ann@alpha.example")
	before := s.record("revisions", ids[1]).GetString("base")

	ctx := newTab(t)
	signIn(t, ctx, s.url, "ann@alpha.example")
	do(t, ctx, chromedp.Click(chromedp.CSS("#tab-trust")))
	audits := `[...document.querySelectorAll('#audits-list li')].map(li => li.dataset.id)`
	waitFor(t, ctx, "the audits", audits+`.length === 2`)
	if got := eval[[]string](t, ctx, audits); !slices.Equal(got, ids) {
		t.Errorf("audits %v, want %v", got, ids)
	}
	screenshot(t, ctx, "audits")
	do(t, ctx, chromedp.Click(chromedp.CSS(`#audits-list li[data-id="`+ids[0]+`"] .confirm-audit`)))
	waitFor(t, ctx, "one audit left", audits+`.length === 1`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#audits-list li[data-id="`+ids[1]+`"] .revert-audit`)))
	waitFor(t, ctx, "no audit left", `document.querySelectorAll('#audits-list li').length === 0`)
	if r := s.record("revisions", ids[0]); r.GetString("audit") != "confirmed" || r.GetString("status") != "accepted" {
		t.Errorf("confirmed: audit %q, status %q", r.GetString("audit"), r.GetString("status"))
	}
	if r := s.record("revisions", ids[1]); r.GetString("audit") != "reverted" || r.GetString("status") != "reverted" {
		t.Errorf("reverted: audit %q, status %q", r.GetString("audit"), r.GetString("status"))
	}
	if name := s.product(a, "BULK-0022").GetString("name"); !strings.Contains(before, name) || strings.Contains(name, "policy") {
		t.Errorf("BULK-0022 is named %q after the revert (before: %s)", name, before)
	}
}

// save stores a record of collection as Go code does, and returns its id.
func (s *service) save(collection string, fields map[string]any) string {
	s.t.Helper()
	c, err := s.app.FindCollectionByNameOrId(collection)
	if err != nil {
		s.t.Fatal(err)
	}
	r := core.NewRecord(c)
	for k, v := range fields {
		r.Set(k, v)
	}
	if err := s.app.Save(r); err != nil {
		s.t.Fatalf("%s: %v", collection, err)
	}
	return r.Id
}
