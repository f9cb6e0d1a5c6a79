package routes_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/schema"
)

// TestSubmissionModelIsHashed: the batch's model is part of the request an
// externalSubmissionId stands for, and a replay answers the first response
// as it was sent, issues included (or not, for one stored before there
// were any).
func TestSubmissionModelIsHashed(t *testing.T) {
	f, app, h := served(t)
	key := f.A.Keys["both"]
	body := func(id, model string) string {
		return `{"externalSubmissionId":"` + id + `",` + model + `"items":[{"sku":"SKU-1","slug":"Bad Slug","name":"N"}]}`
	}
	first := request(h, http.MethodPost, submitURL, key, body("a", `"model":{"name":"writer","version":"1"},`))
	if first.Code != 200 || !strings.Contains(first.Body.String(), `"code":"invalid_slug"`) {
		t.Fatalf("first: %d %s", first.Code, first.Body)
	}
	cases := []struct {
		name, body string
		status     int
		replayed   bool
	}{
		{"the same, formatted otherwise", body("a", `"model" : {"version":"1", "name":"writer"} ,`), 200, true},
		{"another model", body("a", `"model":{"name":"writer","version":"2"},`), 422, false},
		{"no model", body("a", ""), 422, false},
		// a request without a model hashes as before models: null is none
		{"no model, first", body("b", ""), 200, false},
		{"null model", body("b", `"model":null,`), 200, true},
	}
	for _, c := range cases {
		res := request(h, http.MethodPost, submitURL, key, c.body)
		if res.Code != c.status || (res.Header().Get("Idempotent-Replayed") == "true") != c.replayed {
			t.Errorf("%s: %d replayed %q: %s", c.name, res.Code, res.Header().Get("Idempotent-Replayed"), res.Body)
		}
		if c.replayed && res.Body.String() != first.Body.String() && c.name != "null model" {
			t.Errorf("%s: replayed\n%s\nnot\n%s", c.name, res.Body, first.Body)
		}
	}

	// a response stored by a release without checks is answered as it was
	old := `[{"sku":"SKU-1","productId":1,"revisionId":1,"status":"CREATED","ignoredFields":[]}]`
	if _, err := app.DB().NewQuery(`UPDATE ` + schema.IdempotencyTable + ` SET response = {:old}`).
		Bind(map[string]any{"old": old}).Execute(); err != nil {
		t.Fatal(err)
	}
	res := request(h, http.MethodPost, submitURL, key, body("a", `"model":{"name":"writer","version":"1"},`))
	if res.Code != 200 || res.Body.String() != old {
		t.Errorf("old replay: %d %s", res.Code, res.Body)
	}
}

// TestAcceptanceRateByModel: the model and modelVersion filters narrow
// every figure to that model's proposals, and byModel lists each model
// version with a reviewed proposal, by name then version.
func TestAcceptanceRateByModel(t *testing.T) {
	f, app, h := served(t)
	key := f.A.Keys["both"]
	submit := func(model string, skus ...string) []int64 {
		items := make([]string, len(skus))
		for i, s := range skus {
			items[i] = `{"sku":"` + s + `","name":"Proposed ` + s + `"}`
		}
		res := request(h, http.MethodPost, submitURL, key, `{`+model+`"items":[`+strings.Join(items, ",")+`]}`)
		if res.Code != 200 {
			t.Fatalf("submit: %d %s", res.Code, res.Body)
		}
		var ids []int64
		for _, r := range decode[[]enrichment.SubmissionResult](t, res.Body.Bytes()) {
			ids = append(ids, *r.RevisionID)
		}
		return ids
	}
	zeta := submit(`"model":{"name":"zeta","version":"1"},`, "BULK-0001", "BULK-0002", "BULK-0003")
	w1 := submit(`"model":{"name":"writer","version":"1"},`, "BULK-0004", "BULK-0005")
	w10 := submit(`"model":{"name":"writer","version":"10"},`, "BULK-0006", "BULK-0007")
	none := submit("", "BULK-0008")
	submit(`"model":{"name":"writer","version":"2"},`, "BULK-0009") // pending: in no byModel
	token := fixture.ReviewerToken(t, app, string(f.A.Org))
	for id, status := range map[int64]string{zeta[0]: "accepted", zeta[1]: "rejected", w1[0]: "accepted", w1[1]: "accepted",
		w10[0]: "rejected", none[0]: "accepted"} {
		if r := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/revisions/records/%d", id), token, `{"status":"`+status+`"}`); r.Code != 200 {
			t.Fatalf("decide %d: %d %s", id, r.Code, r.Body)
		}
	}
	all := `"byModel":[{"name":"writer","version":"1","reviewed":2,"accepted":2,"acceptanceRate":1},` +
		`{"name":"writer","version":"10","reviewed":1,"accepted":0,"acceptanceRate":0},` +
		`{"name":"zeta","version":"1","reviewed":2,"accepted":1,"acceptanceRate":0.5}]`
	play(t, h, []httpCase{
		{name: "everything", url: metricsURL, key: key, status: 200,
			has: []string{`"totalSubmitted":9,"reviewed":6,"accepted":4,`, all}},
		{name: "a model", url: metricsURL + "?model=writer", key: key, status: 200,
			has: []string{`"totalSubmitted":5,"reviewed":3,"accepted":2,"rejected":1,"pending":2,`,
				`"byModel":[{"name":"writer","version":"1",`, `{"name":"writer","version":"10",`},
			check: func(t testing.TB, body []byte) {
				if strings.Contains(string(body), `"zeta"`) {
					t.Errorf("another model listed: %s", body)
				}
			}},
		{name: "a version", url: metricsURL + "?modelVersion=1", key: key, status: 200,
			has: []string{`"totalSubmitted":5,"reviewed":4,"accepted":3,"rejected":1,"pending":1,`,
				`"byModel":[{"name":"writer","version":"1","reviewed":2,"accepted":2,"acceptanceRate":1},{"name":"zeta","version":"1","reviewed":2,"accepted":1,"acceptanceRate":0.5}]`}},
		{name: "a model's version", url: metricsURL + "?model=writer&modelVersion=10", key: key, status: 200,
			has: []string{`"totalSubmitted":2,"reviewed":1,"accepted":0,"rejected":1,"pending":1,`, `"byModel":[{"name":"writer","version":"10",`}},
		{name: "an unknown model", url: metricsURL + "?model=nobody", key: key, status: 200,
			has: []string{`"totalSubmitted":0,`, `"byModel":[]`}},
		{name: "a window", url: metricsURL + "?since=2000-01-01T00:00:00Z&until=2100-01-01T00:00:00Z", key: key, status: 200,
			has: []string{`"totalSubmitted":9,`, all}},
		{name: "an empty model", url: metricsURL + "?model=", key: key, status: 400, has: []string{`"model":{"code":"validation_invalid_model"`}},
		{name: "a long version", url: metricsURL + "?modelVersion=" + strings.Repeat("v", 101), key: key, status: 400,
			has: []string{`"modelVersion":{"code":"validation_invalid_model"`}},
	})
}

// TestOpenAPIIssueCodes: the document lists exactly the issue codes and
// severities the checks use.
func TestOpenAPIIssueCodes(t *testing.T) {
	app := fixture.Get(t).NewApp(t)
	t.Cleanup(app.Cleanup)
	issue := oaLoad(t, handler(t, app)).ref("#/components/schemas/Issue")
	props := oaMap(issue["properties"])
	for name, want := range map[string][]string{"code": enrichment.IssueCodes,
		"severity": {enrichment.SeverityError, enrichment.SeverityWarning}} {
		var got []string
		for _, v := range oaSlice(oaMap(props[name])["enum"]) {
			got = append(got, v.(string))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s enum %v, want %v", name, got, want)
		}
	}
}

// TestSubmissionIssuesBounded: an item lists at most 50 issues, and a
// message quotes at most 100 characters of what was sent.
func TestSubmissionIssuesBounded(t *testing.T) {
	f, _, h := served(t)
	attrs := make([]string, 80)
	for i := range attrs {
		attrs[i] = fmt.Sprintf(`{"attribute":"Unknown %d %s","detail":"x"}`, i, strings.Repeat("n", 500))
	}
	res := request(h, http.MethodPost, submitURL+"?dryRun=true", f.A.Keys["both"],
		`{"items":[{"sku":"SKU-1","attributes":[`+strings.Join(attrs, ",")+`]}]}`)
	if res.Code != 200 {
		t.Fatalf("%d %s", res.Code, res.Body)
	}
	r := decode[[]enrichment.SubmissionResult](t, res.Body.Bytes())[0]
	if r.Status != "CREATED" || len(r.Issues) != enrichment.MaxIssuesPerItem || r.Issues[49].Field != "attributes.49" {
		t.Fatalf("%s with %d issues", r.Status, len(r.Issues))
	}
	if n := len(r.Issues[0].Message); n > 250 {
		t.Errorf("a message of %d bytes: %s", n, r.Issues[0].Message)
	}
}
