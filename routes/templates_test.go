package routes_test

import (
	"fmt"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/pocketbase/pocketbase/tests"
)

func TestTemplatesList(t *testing.T) {
	f := fixture.Get(t)
	url := "/api/enrichment/attribute-templates"
	run(t, f, []call{
		{name: "organization A sees its active template with options by priority", url: url, key: f.A.Keys["read"], status: 200,
			check: func(t testing.TB, app *tests.TestApp, body []byte) {
				got := decode[[]map[string]any](t, body)
				if len(got) != 1 {
					t.Fatalf("want only the active template, got %s", body)
				}
				id := got[0]["id"]
				opts := got[0]["options"].([]any)
				optID := func(i int) any { return opts[i].(map[string]any)["id"] }
				sameJSON(t, "template", got[0], fmt.Sprintf(`{"id":%v,"name":"Shoes","options":[
					{"id":%v,"attribute":"Color","unit":null,"priority":1,"dataType":"STRING","showOnWebsite":true,"isSearchable":true},
					{"id":%v,"attribute":"Size","unit":"EU","priority":2,"dataType":"NUMBER","showOnWebsite":true,"isSearchable":false},
					{"id":%v,"attribute":"Material","unit":null,"priority":3,"dataType":null,"showOnWebsite":false,"isSearchable":true}]}`,
					id, optID(0), optID(1), optID(2)))
			}},
		{name: "organization B sees only its own", url: url, key: f.B.Keys["both"], status: 200,
			content: []string{`"name":"Drills"`, `"unit":"W"`}, absent: []string{"Shoes", "Retired", "Legacy"}},
		{name: "inactive templates are left out", url: url, key: f.A.Keys["read"], status: 200,
			content: []string{"Shoes"}, absent: []string{"Retired", "Legacy", "Drills"}},
	})
}

func TestEmptyOrganization(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	c, err := fixture.AddTenant(app, "Empty Co")
	if err != nil {
		t.Fatal(err)
	}
	h := handler(t, app)
	for url, want := range map[string]string{
		"/api/enrichment/attribute-templates": `[]`,
		"/api/enrichment/products":            `{"items":[],"page":0,"pageSize":100,"totalElements":0,"totalPages":0}`,
	} {
		res := request(h, "GET", url, c.Keys["read"], "")
		if res.Code != 200 {
			t.Fatalf("%s: status %d", url, res.Code)
		}
		sameJSON(t, url, decode[any](t, res.Body.Bytes()), want)
	}
}
