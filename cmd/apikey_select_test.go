package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
)

// TestAPIKeyCatalog: apikey create and apikey select set a client's
// catalog by names or ids, print it as stored, refuse what the
// organization does not have and leave the client as it was then.
func TestAPIKeyCatalog(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	org := string(f.A.Org)
	id, _ := keyViaCLI(t, app, "--org", org, "--templates", "Shoes", "--categories", "Running, Shoes")
	stored := func() string {
		t.Helper()
		return apiClientRecord(t, app, id).GetString("catalog")
	}
	var shoes string
	if err := app.DB().NewQuery("SELECT id FROM attribute_templates WHERE name = 'Shoes' AND organization = {:org}").
		Bind(map[string]any{"org": org}).Row(&shoes); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`{"templates":["%s"],"brands":[],"categories":["Running","Shoes"]}`, shoes); stored() != want {
		t.Errorf("created with %s, want %s", stored(), want)
	}

	r := mustRunCmd(t, apikeyCommand, app, "select", "--client", fmt.Sprint(id), "--brands", " Acme", "--json")
	if !strings.HasPrefix(r.stdout, `{"id":`) {
		t.Errorf("select --json printed %q, want the id first", r.stdout)
	}
	var got struct {
		ID      int64 `json:"id"`
		Catalog struct {
			Templates, Brands, Categories []string
		} `json:"catalog"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.ID != id || len(got.Catalog.Brands) != 1 ||
		len(got.Catalog.Templates) != 0 || len(got.Catalog.Categories) != 0 {
		t.Errorf("select --brands Acme --json printed %q (%v)", r.stdout, err)
	}
	if r := mustRunCmd(t, apikeyCommand, app, "select", "--client", fmt.Sprint(id)); !strings.Contains(r.stdout, "sees the whole catalog") {
		t.Errorf("select with no list printed %q", r.stdout)
	}

	before := stored()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--templates", "Drills"}, `names the template "Drills"`},
		{[]string{"--brands", "Nope"}, `names the brand "Nope"`},
		{[]string{"--categories", "Boats"}, `category "Boats", which no product`},
	} {
		r := runCmd(apikeyCommand, app, append([]string{"select", "--client", fmt.Sprint(id)}, c.args...)...)
		wantCmdErr(t, r, c.want)
		if stored() != before {
			t.Errorf("%v changed the catalog to %s", c.args, stored())
		}
	}
	wantCmdErr(t, runCmd(apikeyCommand, app, "select", "--client", "999", "--brands", "Acme"), "no API key with id 999")
	wantCmdErr(t, runCmd(apikeyCommand, app, "create", "--org", org, "--templates", "Drills"), `names the template "Drills"`)
}
