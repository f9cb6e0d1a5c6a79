package routes_test

import (
	"encoding/json/v2"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/webhooks"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// addOption adds an option to organization A's Shoes template and returns
// its id.
func addOption(t testing.TB, app *tests.TestApp, f *fixture.Fixture, name, dataType, unit string) int64 {
	t.Helper()
	tpl, err := app.FindFirstRecordByFilter("attribute_templates", "organization = {:org} && name = 'Shoes'", dbx.Params{"org": string(f.A.Org)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := app.FindCollectionByNameOrId("attribute_options")
	if err != nil {
		t.Fatal(err)
	}
	r := core.NewRecord(c)
	r.Load(map[string]any{"organization": string(f.A.Org), "template": tpl.Id, "attribute": name, "dataType": dataType,
		"unit": unit, "priority": 9})
	if err := app.Save(r); err != nil {
		t.Fatal(err)
	}
	return mustID(t, r.Id)
}

// optionID is the id of the Shoes option called name.
func optionID(t testing.TB, app *tests.TestApp, f *fixture.Fixture, name string) int64 {
	t.Helper()
	r, err := app.FindFirstRecordByFilter("attribute_options", "organization = {:org} && attribute = {:name}",
		dbx.Params{"org": string(f.A.Org), "name": name})
	if err != nil {
		t.Fatal(err)
	}
	return mustID(t, r.Id)
}

// issueList is a result's issues as "field:code:severity", space-separated.
func issueList(issues []enrichment.Issue) string {
	out := make([]string, len(issues))
	for i, is := range issues {
		out[i] = is.Field + ":" + is.Code + ":" + is.Severity
	}
	return strings.Join(out, " ")
}

// TestSubmissionChecks: each item is checked against its product and the
// product's template before anything is stored; the result lists the
// issues, errors drop the value and list its place in ignoredFields, a dry
// run answers the same, and the stored revision keeps the issues and the
// normalized values.
func TestSubmissionChecks(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	waterproof := addOption(t, app, f, "Waterproof", "BOOLEAN", "")
	h := handler(t, app)
	key := f.A.Keys["both"]
	attr := func(name, detail string) map[string]any { return map[string]any{"attribute": name, "detail": detail} }
	items := []any{
		map[string]any{"sku": "SKU-1", "name": "Runner", "slug": "Trail Runner", "description": "Lighter than ever.",
			"attributes": []any{attr("color", "Blue"), attr("Size", "43 EU"), attr("Size", "approx. 43"), attr(" ", "dropped as before"),
				attr("waterproof", "Yes"), attr("Waterproof", "maybe"), attr("Sole", "Rubber"), attr("Fit", "Wide")}},
		map[string]any{"sku": "SKU-M", "slug": "runner"},
		map[string]any{"sku": "SKU-M-RED", "name": "Trail Red 42", "attributes": []any{attr("Color", "Red"), attr("SIZE", "42 EU")}},
		map[string]any{"sku": "NOPE", "slug": "Bad Slug"},
		map[string]any{"sku": "SKU-NEW", "name": "Fresh", "slug": "fresh"},
	}
	body, err := json.Marshal(map[string]any{"items": items})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ status, ignored, issues string }{
		{"CREATED", "attributes.3,slug,name,attributes.2,attributes.5,attributes.7", // note: the item's members go out in name order
			"slug:invalid_slug:error name:unchanged:warning attributes.0:renamed:warning attributes.1:unit_removed:warning " +
				"attributes.2:not_a_number:error attributes.4:renamed:warning attributes.4:normalized:warning " +
				"attributes.5:not_a_boolean:error attributes.6:not_in_template:warning attributes.7:not_in_template:warning attributes.7:unchanged:warning"},
		{"CREATED", "", "slug:slug_in_use:warning"},
		{"REJECTED_FIELDS", "name,attributes.0,attributes.1",
			"name:unchanged:warning attributes.0:unchanged:warning attributes.1:renamed:warning attributes.1:unit_removed:warning attributes.1:unchanged:warning"},
		{"UNMATCHED", "slug", "slug:invalid_slug:error"},
		{"CREATED", "", ""},
	}
	var answers [2][]enrichment.SubmissionResult
	for i, url := range []string{submitURL + "?dryRun=true", submitURL} {
		before := countRevisions(t, app)
		res := request(h, http.MethodPost, url, key, string(body))
		if res.Code != 200 {
			t.Fatalf("%s: %d %s", url, res.Code, res.Body)
		}
		if !strings.Contains(res.Body.String(), `"issues":[]`) {
			t.Errorf("an item without issues has no issues: []: %s", res.Body)
		}
		answers[i] = decode[[]enrichment.SubmissionResult](t, res.Body.Bytes())
		for n, w := range want {
			got := answers[i][n]
			if got.Status != w.status || strings.Join(got.IgnoredFields, ",") != w.ignored || issueList(got.Issues) != w.issues {
				t.Errorf("%s item %d: %s %q\n%s\nwant %s %q\n%s", url, n, got.Status, got.IgnoredFields, issueList(got.Issues),
					w.status, w.ignored, w.issues)
			}
		}
		if stored := countRevisions(t, app) - before; stored != []int{0, 3}[i] {
			t.Errorf("%s stored %d revisions", url, stored)
		}
	}
	for n := range want {
		if !slices.Equal(answers[0][n].Issues, answers[1][n].Issues) {
			t.Errorf("item %d: the dry run answered\n%+v\nthe submission\n%+v", n, answers[0][n].Issues, answers[1][n].Issues)
		}
	}

	// the stored revision: the values as normalized, the issues as answered
	rev, err := app.FindRecordById("revisions", fmt.Sprint(*answers[1][0].RevisionID))
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "proposed", rev.Get("proposed"), fmt.Sprintf(`{"description":"Lighter than ever.","attributes":[
		{"attribute":"Color","detail":"Blue","optionId":%d},{"attribute":"Size","detail":"43"},
		{"attribute":"Waterproof","detail":"true","optionId":%d},{"attribute":"Sole","detail":"Rubber"}]}`,
		optionID(t, app, f, "Color"), waterproof))
	issues, err := json.Marshal(answers[1][0].Issues)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "issues", rev.Get("issues"), string(issues))
}

// TestSubmissionModelAndSources: a batch's model applies to every item
// without its own; sources are kept, a bad one dropped with a warning;
// neither is ever in ignoredFields; reviewers see all of it in the records
// API, the vendor in its revisions and webhook payloads; a malformed model
// refuses the batch; and no source URL is ever fetched.
func TestSubmissionModelAndSources(t *testing.T) {
	t.Setenv(webhooks.AllowPrivateEnv, "1")
	f, app, h := served(t)
	key := f.A.Keys["both"]
	var fetched atomic.Int32 // requests the cited page received
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fetched.Add(1) }))
	t.Cleanup(page.Close)
	sourceURL := page.URL + "/evidence"

	many := make([]any, 12)
	for i := range many {
		many[i] = map[string]any{"field": "name", "url": fmt.Sprintf("https://maker.example/p/%d", i)}
	}
	batch := map[string]any{
		"model": map[string]any{"name": "writer", "version": "1"},
		"items": []any{
			map[string]any{"sku": "SKU-1", "name": "Runner Pro", "attributes": []any{map[string]any{"attribute": "Color", "detail": "Navy"}},
				"sources": []any{
					map[string]any{"field": "name", "url": sourceURL, "quote": "Runner Pro"},
					map[string]any{"field": "slug", "url": "https://maker.example/"},              // not proposed
					map[string]any{"field": "attributes.Color", "url": "https://maker.example/c"}, // kept
					map[string]any{"field": "name", "url": "maker.example/relative"},
					map[string]any{"field": "name", "url": 5},
					"not an object",
				}},
			map[string]any{"sku": "SKU-M", "name": "Trail Pro", "model": map[string]any{"name": "writer", "version": "2"}, "sources": many},
			map[string]any{"sku": "SKU-NEW", "name": "Fresh", "sources": nil, "model": nil},
		},
	}
	body, err := json.Marshal(batch)
	if err != nil {
		t.Fatal(err)
	}
	res := request(h, http.MethodPost, submitURL, key, string(body))
	if res.Code != 200 {
		t.Fatalf("submission: %d %s", res.Code, res.Body)
	}
	results := decode[[]enrichment.SubmissionResult](t, res.Body.Bytes())
	wantIssues := []string{
		"sources.1:invalid_source:warning sources.3:invalid_source:warning sources.4:invalid_source:warning sources.5:invalid_source:warning",
		"sources.10:invalid_source:warning sources.11:invalid_source:warning", ""}
	for i, r := range results {
		if r.Status != "CREATED" || len(r.IgnoredFields) != 0 || issueList(r.Issues) != wantIssues[i] {
			t.Errorf("item %d: %s %q %s", i, r.Status, r.IgnoredFields, issueList(r.Issues))
		}
	}

	// the vendor's revisions list
	type item struct {
		Issues  []enrichment.Issue  `json:"issues"`
		Model   *enrichment.Model   `json:"model"`
		Sources []enrichment.Source `json:"sources"`
	}
	list := decode[enrichment.Page[item]](t, request(h, http.MethodGet, revisionsURL, key, "").Body.Bytes()).Items
	if len(list) != 3 {
		t.Fatalf("%d revisions", len(list))
	}
	models := []string{"writer 1", "writer 2", "writer 1"}
	sources := []int{2, 10, 0}
	for i, it := range list {
		if it.Model == nil || it.Model.Name+" "+it.Model.Version != models[i] || len(it.Sources) != sources[i] {
			t.Errorf("revision %d: model %+v, %d sources", i, it.Model, len(it.Sources))
		}
		if issueList(it.Issues) != wantIssues[i] {
			t.Errorf("revision %d: issues %s", i, issueList(it.Issues))
		}
	}
	if got := list[0].Sources; got[0] != (enrichment.Source{Field: "name", URL: sourceURL, Quote: "Runner Pro"}) || got[1].Field != "attributes.Color" {
		t.Errorf("sources %+v", got)
	}

	// the reviewers' records API
	token := fixture.ReviewerToken(t, app, string(f.A.Org))
	rec := requestAuth(h, http.MethodGet, fmt.Sprintf("/api/collections/revisions/records/%d", *results[0].RevisionID), token, "")
	for _, want := range []string{`"model":{"name":"writer","version":"1"}`, `"sources":[{"field":"name","url":"` + sourceURL + `","quote":"Runner Pro"}`,
		`"issues":[{"field":"sources.1","code":"invalid_source","severity":"warning"`} {
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("the reviewer's record lacks %s: %d %s", want, rec.Code, rec.Body)
		}
	}
	// reviewers cannot change them
	if r := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/revisions/records/%d", *results[0].RevisionID), token,
		`{"model":{"name":"other","version":"9"}}`); r.Code != 400 {
		t.Errorf("a reviewer changed the model: %d %s", r.Code, r.Body)
	}

	// a webhook payload carries them
	subscribe(t, h, key, "http://127.0.0.1:9/decided", "revision.accepted")
	if r := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/revisions/records/%d", *results[0].RevisionID), token,
		`{"status":"accepted"}`); r.Code != 200 {
		t.Fatalf("accept: %d %s", r.Code, r.Body)
	}
	var payload string
	if err := app.DB().Select("payload").From("webhook_deliveries").Where(dbx.HashExp{"event": "revision.accepted"}).Row(&payload); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"model":{"name":"writer","version":"1"}`, `"url":"` + sourceURL + `"`, `"code":"invalid_source"`} {
		if !strings.Contains(payload, want) {
			t.Errorf("payload lacks %s: %s", want, payload)
		}
	}

	// malformed models refuse the batch, naming the place
	before := countRevisions(t, app)
	for _, c := range []struct{ body, place string }{
		{`{"model":{"name":"","version":"1"},"items":[{"sku":"SKU-1","name":"x"}]}`, "model"},
		{`{"model":"writer","items":[{"sku":"SKU-1","name":"x"}]}`, "model"},
		{`{"items":[{"sku":"SKU-1","name":"x"}],"model":{"name":"w","version":"` + strings.Repeat("v", 101) + `"}}`, "model"},
		{`{"items":[{"sku":"SKU-1","name":"x"},{"sku":"SKU-M","name":"y","model":{"name":"w"}}]}`, "items.1.model"},
		{`{"items":[{"sku":"SKU-1","name":"x","model":{"name":7,"version":"1"}}]}`, "items.0.model"},
		{`{"items":[{"sku":"SKU-1","name":"x","sources":"https://maker.example/"}]}`, "items.0.sources"},
	} {
		res := request(h, http.MethodPost, submitURL, key, c.body)
		if res.Code != 400 || !strings.Contains(res.Body.String(), `"`+c.place+`":{"code":`) {
			t.Errorf("%s: %d %s, want 400 naming %s", c.body, res.Code, res.Body, c.place)
		}
	}
	if after := countRevisions(t, app); after != before {
		t.Errorf("refused batches stored %d revisions", after-before)
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("the cited page was fetched %d times", n)
	}
}

// mustID reads a numeric record id.
func mustID(t testing.TB, id string) int64 {
	t.Helper()
	n, err := enrichment.ParseID(id)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSourcesOfDroppedFields: a source of a field that a check leaves out
// (an invalid slug, a name that is the product's already) is dropped with
// its own invalid_source warning, at its place; the others stay, and a
// dry run answers the same.
func TestSourcesOfDroppedFields(t *testing.T) {
	f, _, h := served(t)
	key := f.A.Keys["both"]
	body := `{"sku":"SKU-M-RED","name":"Trail Red 42","slug":"Bad Slug","description":"Laced for the trail.","sources":[
		{"field":"slug","url":"https://maker.example/s"},
		{"field":"description","url":"https://maker.example/d"},
		{"field":"name","url":"https://maker.example/n"}]}`
	want := "slug:invalid_slug:error name:unchanged:warning sources.0:invalid_source:warning sources.2:invalid_source:warning"
	for _, u := range []string{submitURL + "?dryRun=true", submitURL} {
		res := request(h, http.MethodPost, u, key, `{"items":[`+body+`]}`)
		if res.Code != 200 {
			t.Fatalf("%s: %d %s", u, res.Code, res.Body)
		}
		r := decode[[]enrichment.SubmissionResult](t, res.Body.Bytes())[0]
		if r.Status != "CREATED" || issueList(r.Issues) != want {
			t.Errorf("%s: %s %s, want the issues %s", u, r.Status, issueList(r.Issues), want)
		}
	}
	type item struct {
		Sources []enrichment.Source `json:"sources"`
	}
	list := decode[enrichment.Page[item]](t, request(h, http.MethodGet, revisionsURL, key, "").Body.Bytes()).Items
	if len(list) != 1 || len(list[0].Sources) != 1 || list[0].Sources[0].Field != "description" {
		t.Errorf("stored sources: %+v", list)
	}
}
