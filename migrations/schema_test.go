package migrations_test

import (
	"testing"

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
		_, err := st.Submit(tenant.Org, tenant.Clients["submit"], []enrichment.Proposal{
			{SKU: "SKU-1", Fields: enrichment.Fields{Name: &name}},
		}, store.SubmitOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}

	collections := []string{"api_clients", "attribute_templates", "attribute_options", "brands", "products", "revisions"}
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
	if before["revisions"] != 1 || before["products"] == 0 {
		t.Errorf("fixture of B: %v", before)
	}
}
