package migrations_test

import (
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

// TestDeleteOrganization checks that deleting an organization (from the
// dashboard, say) removes all of its data, revisions included, and nothing
// of another organization's.
func TestDeleteOrganization(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	st := store.New(app)
	name := "Better name"
	for _, tenant := range []fixture.Tenant{f.A, f.B} {
		_, err := st.Proposals().Submit(tenant.Org, tenant.Clients["submit"], []enrichment.Proposal{
			{SKU: "SKU-1", Fields: enrichment.Fields{Name: &name}},
		}, store.SubmitOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}

	// A has a trust policy that decided a revision, and a person's decision
	policies, err := app.FindCollectionByNameOrId("trust_policies")
	if err != nil {
		t.Fatal(err)
	}
	policy := core.NewRecord(policies)
	policy.Load(map[string]any{"organization": string(f.A.Org), "apiClient": store.FormatID(f.A.Clients["submit"]), "fields": []string{"name"}, "auditRate": 0.05})
	if err := app.Save(policy); err != nil {
		t.Fatal(err)
	}
	res, err := st.Proposals().Submit(f.A.Org, f.A.Clients["submit"], []enrichment.Proposal{{SKU: "SKU-NEW", Fields: enrichment.Fields{Name: &name}}}, store.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []int64{*res[0].RevisionID, firstRevision(t, app, f.A.Org)} {
		rev, err := app.FindRecordById("revisions", store.FormatID(id))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 { // accepted by the policy, as the trust worker does
			out, err := st.Review().DecideSet(f.A.Org, []store.SetDecision{{Revision: rev.Id,
				Decision: enrichment.Decision{Status: enrichment.StatusAccepted}, Audit: true}}, store.SetDecider{Policy: policy.Id}, time.Now())
			if err != nil || !out[0].Decided() {
				t.Fatal(err, out)
			}
			continue
		}
		rev.Set("status", enrichment.StatusAccepted)
		if err := app.Save(rev); err != nil {
			t.Fatal(err)
		}
	}
	if err := app.Delete(policy); err == nil {
		t.Error("a policy that decided a revision was deleted")
	}

	collections := []string{"api_clients", "attribute_templates", "attribute_options", "brands", "products", "revisions",
		"trust_policies", schema.TrustCountsTable}
	count := func(c string, org enrichment.Org) int {
		var n int
		if err := app.DB().Select("COUNT(*)").From(c).Where(dbx.HashExp{"organization": string(org)}).Row(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := map[string]int{}
	for _, c := range collections {
		before[c] = count(c, f.B.Org)
	}

	org, err := app.FindRecordById("organizations", string(f.A.Org))
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Delete(org); err != nil {
		t.Fatalf("delete organization A: %v", err)
	}
	for _, c := range collections {
		if n := count(c, f.A.Org); n != 0 {
			t.Errorf("%s: %d of the deleted organization left", c, n)
		}
		if n := count(c, f.B.Org); n != before[c] {
			t.Errorf("%s: the other organization has %d, had %d", c, n, before[c])
		}
	}
	if n := count(schema.TrustCountsTable, f.A.Org); n != 0 {
		t.Errorf("trust counters of A left: %d", n)
	}
	if before["revisions"] != 1 || before["products"] == 0 {
		t.Errorf("fixture of B: %v", before)
	}
}

// firstRevision is the id of org's oldest revision.
func firstRevision(t *testing.T, app core.App, org enrichment.Org) int64 {
	t.Helper()
	var id string
	err := app.DB().Select("id").From("revisions").Where(dbx.HashExp{"organization": string(org)}).OrderBy("CAST(id AS INTEGER)").Limit(1).Row(&id)
	if err != nil {
		t.Fatal(err)
	}
	n, err := enrichment.ParseID(id)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
