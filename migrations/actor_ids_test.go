package migrations_test

import (
	"fmt"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// TestActorsMigratedToIDs: revisions an earlier release decided, audited
// or rolled back name who did it as "reviewer:EMAIL" or "superuser:EMAIL";
// starting the server rewrites each to that reviewer's or superuser's id,
// as decisions, audits and rollbacks now record it, and leaves a name
// whose email matches no one, a policy's name and the service's as they
// were.
func TestActorsMigratedToIDs(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	fixture.ReviewerToken(t, app, string(f.A.Org))
	fixture.SuperuserToken(t, app)
	reviewer, err := app.FindAuthRecordByEmail(schema.Reviewers, "reviewer-"+string(f.A.Org)+"@example.com")
	if err != nil {
		t.Fatal(err)
	}
	superusers, err := app.FindAllRecords(core.CollectionNameSuperusers)
	if err != nil || len(superusers) == 0 {
		t.Fatalf("a superuser: %v", err)
	}
	superuser := superusers[0]
	old := []string{"reviewer:" + reviewer.Email(), "superuser:" + superuser.Email(), "reviewer:gone@example.com", "", "system", "policy:1"}
	want := []string{reviewer.Id, superuser.Id, "reviewer:gone@example.com", "", "system", "policy:1"}
	var ids []string
	for i := range old {
		name := fmt.Sprintf("Proposed %d", i)
		res, err := store.New(app).Proposals().Submit(f.A.Org, f.A.Clients["submit"],
			[]enrichment.Proposal{{SKU: "SKU-1", Fields: enrichment.Fields{Name: &name}}}, store.SubmitOptions{})
		if err != nil || res[0].RevisionID == nil {
			t.Fatalf("a revision to mark: %v %+v", err, res)
		}
		ids = append(ids, store.FormatID(*res[0].RevisionID))
	}
	for _, c := range []struct{ column, migration string }{
		{"revertedBy", "1795276740_reverted_by_ids.go"},
		{"reviewer", "1795277400_reviewer_ids.go"},
		{"auditedBy", "1795277400_reviewer_ids.go"},
	} {
		for i, by := range old {
			if _, err := app.DB().Update(schema.Revisions, dbx.Params{c.column: by}, dbx.HashExp{"id": ids[i]}).Execute(); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := app.DB().Delete("_migrations", dbx.HashExp{"file": c.migration}).Execute(); err != nil {
			t.Fatal(err)
		}
		if err := app.RunAllMigrations(); err != nil {
			t.Fatal(fmt.Errorf("run the migrations again: %w", err))
		}
		for i, id := range ids {
			var got string
			if err := app.DB().Select(c.column).From(schema.Revisions).Where(dbx.HashExp{"id": id}).Row(&got); err != nil {
				t.Fatal(err)
			}
			if got != want[i] {
				t.Errorf("%s %q became %q, want %q", c.column, old[i], got, want[i])
			}
		}
	}
}
