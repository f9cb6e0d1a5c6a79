package hooks_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

func TestNumericIDs(t *testing.T) {
	app := fixture.Empty(t)
	st := store.New(app)
	orgs := make([]int64, 3)
	for i := range orgs {
		id, err := st.Accounts().CreateOrg("Org")
		if err != nil {
			t.Fatal(err)
		}
		orgs[i] = id
	}
	if orgs[0] != 1 || orgs[1] != 2 || orgs[2] != 3 {
		t.Fatalf("ids %v, want 1 2 3", orgs)
	}

	// deleting the newest does not give its number back
	rec, err := app.FindRecordById("organizations", "3")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Delete(rec); err != nil {
		t.Fatal(err)
	}
	if id, _ := st.Accounts().CreateOrg("After delete"); id != 4 {
		t.Errorf("after deleting 3, next id %d, want 4", id)
	}

	// an explicit id is kept and never handed out later
	c, _ := app.FindCollectionByNameOrId("organizations")
	explicit := core.NewRecord(c)
	explicit.Id = "10"
	explicit.Set("name", "Explicit")
	if err := app.Save(explicit); err != nil {
		t.Fatal(err)
	}
	if id, _ := st.Accounts().CreateOrg("After explicit"); id != 11 {
		t.Errorf("after explicit 10, next id %d, want 11", id)
	}

	// ids that are not decimal numbers are refused
	for _, bad := range []string{"abc", "0", "01", "-1", "12345678901234567"} {
		r := core.NewRecord(c)
		r.Id = bad
		r.Set("name", "Bad")
		if err := app.Save(r); err == nil {
			t.Errorf("id %q accepted", bad)
		}
	}

	// collections whose ids are not numeric are left alone
	rc, _ := app.FindCollectionByNameOrId("reviewers")
	reviewer := core.NewRecord(rc)
	reviewer.SetEmail("r@example.com")
	reviewer.SetPassword("1234567890")
	reviewer.Set("organization", "1")
	if err := app.Save(reviewer); err != nil {
		t.Fatal(err)
	}
	if len(reviewer.Id) != 15 {
		t.Errorf("reviewer id %q, want PocketBase's default", reviewer.Id)
	}
}

// TestNumericIDsFromDashboard creates a record the way the dashboard does:
// a superuser's POST through the records API with no id.
func TestNumericIDsFromDashboard(t *testing.T) {
	f := fixture.Get(t)
	s := &tests.ApiScenario{
		Method: http.MethodPost, URL: "/api/collections/brands/records",
		Body:            strings.NewReader(`{"organization":"` + string(f.A.Org) + `","name":"Dashboard Brand"}`),
		ExpectedStatus:  200,
		ExpectedContent: []string{`"name":"Dashboard Brand"`, `"id":"2"`},
	}
	s.TestAppFactory = func(tb testing.TB) *tests.TestApp {
		app := f.NewApp(tb)
		s.Headers = map[string]string{"Authorization": fixture.SuperuserToken(tb, app)}
		return app
	}
	s.Test(t)
}
