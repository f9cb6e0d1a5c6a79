package routes_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/jobs"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// TestRealtimeFollowsPolicies: realtime subscribers to revisions hear of a
// trust policy's acceptance and of the rollback of a reverted audit, as
// updates, under the collection's rules.
func TestRealtimeFollowsPolicies(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	srv := httptest.NewServer(fixture.Serve(t, app))
	t.Cleanup(srv.Close)
	st := store.New(app)
	propose := func(first, n, confidence int) []int64 {
		batch := make([]enrichment.Proposal, n)
		for i := range batch {
			name, c := fmt.Sprintf("Better %d", first+i), confidence
			batch[i] = enrichment.Proposal{SKU: fmt.Sprintf("BULK-%04d", first+i), Confidence: &c, Fields: enrichment.Fields{Name: &name}}
		}
		res, err := st.Proposals().Submit(f.A.Org, f.A.Clients["both"], batch, store.SubmitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, n)
		for i, r := range res {
			ids[i] = *r.RevisionID
		}
		return ids
	}
	for _, id := range propose(1, 20, 95) {
		rev, err := app.FindRecordById("revisions", store.FormatID(id))
		if err != nil {
			t.Fatal(err)
		}
		rev.Set("status", enrichment.StatusAccepted)
		if err := app.Save(rev); err != nil {
			t.Fatal(err)
		}
	}
	policies, err := app.FindCollectionByNameOrId("trust_policies")
	if err != nil {
		t.Fatal(err)
	}
	policy := core.NewRecord(policies)
	policy.Load(map[string]any{"organization": string(f.A.Org), "apiClient": store.FormatID(f.A.Clients["both"]), "fields": []string{"name"},
		"minConfidence": 80, "minReviewed": 20, "targetPrecision": 0.85, "auditRate": 1, "enabled": true})
	if err := app.Save(policy); err != nil || policy.GetString("state") != enrichment.PolicyActive {
		t.Fatalf("policy %s: %v", policy.GetString("state"), err)
	}

	tokenA := fixture.ReviewerToken(t, app, string(f.A.Org))
	reviewerA := subscribeRevisions(t, srv.URL, tokenA)
	reviewerB := subscribeRevisions(t, srv.URL, fixture.ReviewerToken(t, app, string(f.B.Org)))
	id := propose(30, 1, 90)[0]
	expectEvents(t, "A's reviewer", reviewerA, "create "+store.FormatID(id)+" pending")
	if n := jobs.NewTrust(app).Step(); n != 1 {
		t.Fatalf("the policy accepted %d", n)
	}
	expectEvents(t, "A's reviewer", reviewerA, "update "+store.FormatID(id)+" accepted")

	rec := requestAuth(srv.Config.Handler, "POST", "/api/enrichment/review/audits/"+store.FormatID(id), tokenA, `{"audit":"reverted"}`)
	if rec.Code != 200 {
		t.Fatalf("revert the audit: %d %s", rec.Code, rec.Body)
	}
	expectEvents(t, "A's reviewer", reviewerA, "update "+store.FormatID(id)+" reverted")

	b := submitted(t, srv.Config.Handler, f.B.Keys["submit"], submitURL, `{"sku":"SKU-1","name":"B live"}`)
	expectEvents(t, "B's reviewer", reviewerB, "create "+store.FormatID(b[0])+" pending")
}
