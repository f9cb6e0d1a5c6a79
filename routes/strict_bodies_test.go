package routes_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

// TestUndefinedMembersRefused sends each route's body with a member the
// route does not define, or one that differs from a defined name only in
// letter case: 400 naming it, and nothing changes. A submission item's
// unknown fields are the one exception: still listed in ignoredFields.
func TestUndefinedMembersRefused(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	k := rollbackKit{t, app, store.New(app)}
	accepted := k.accept(f.A, "both", enrichment.Proposal{SKU: "SKU-NEW", Fields: enrichment.Fields{Name: ptr("Accepted name")}})
	pending := k.submit(f.A, "both", enrichment.Proposal{SKU: "SKU-1", Fields: enrichment.Fields{Name: ptr("Pending name"),
		Description: ptr("Pending description.")}})
	reviewer := fixture.ReviewerToken(t, app, string(f.A.Org))
	h := handler(t, app)
	count := func(collection string) int64 {
		n, err := app.CountRecords(collection)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	hook, err := k.st.Outbox().CreateWebhook(f.A.Org, f.A.Clients["submit"], "https://hooks.example/x", []string{"ping"}, "sealed")
	if err != nil {
		t.Fatal(err)
	}
	webhooks, revisions, deliveries := count("webhooks"), count("revisions"), count("webhook_deliveries")
	submitKey, readKey := f.A.Keys["submit"], f.A.Keys["read"]
	const submissions = "/api/enrichment/products/submissions"
	cases := []struct {
		what, url, key, token, body, member string
	}{
		{"rollback, DryRun", "/api/enrichment/review/rollbacks", "", reviewer, `{"revision":"` + accepted + `","DryRun":true}`, "DryRun"},
		{"rollback, unknown", "/api/enrichment/review/rollbacks", "", reviewer, `{"revision":"` + accepted + `","force":true}`, "force"},
		{"group decision, approvedfields", "/api/enrichment/review/decisions", "", reviewer,
			`{"decisions":[{"id":"` + pending + `","status":"accepted","approvedfields":["name"]}]}`, "decisions.0.approvedfields"},
		{"group decision, top level", "/api/enrichment/review/decisions", "", reviewer,
			`{"decisions":[{"id":"` + pending + `","status":"accepted"}],"StopOnFailure":true}`, "StopOnFailure"},
		{"audit", "/api/enrichment/review/audits/" + accepted, "", reviewer, `{"audit":"confirmed","note":"x"}`, "note"},
		{"claim", "/api/enrichment/review/claims/" + pending, "", reviewer, `{"minutes":5}`, "minutes"},
		{"SKU lookup", "/api/enrichment/products/skus", readKey, "", `{"skus":["SKU-1"],"SKUS":["SKU-2"]}`, "SKUS"},
		{"webhook", "/api/enrichment/webhooks", submitKey, "", `{"url":"https://hooks.example/a","events":["revision.accepted"],"secret":"s"}`, "secret"},
		{"webhook test", "/api/enrichment/webhooks/" + store.FormatID(hook.ID) + "/test", submitKey, "", `{"event":"ping"}`, "event"},
		{"submission, top level", submissions, submitKey, "", `{"Items":[{"sku":"SKU-1","name":"Refused"}]}`, "Items"},
		{"submission, model", submissions, submitKey, "", `{"model":{"name":"writer","version":"1","Version":"2"},"items":[{"sku":"SKU-1","name":"Refused"}]}`, "model.Version"},
		{"submission, item model", submissions, submitKey, "", `{"items":[{"sku":"SKU-1","name":"Refused","model":{"name":"w","version":"1","temperature":0}}]}`, "items.0.model.temperature"},
		{"submission, attribute", submissions, submitKey, "", `{"items":[{"sku":"SKU-1","name":"Refused","attributes":[{"attribute":"Color","detail":"Teal","Detail":"x"}]}]}`, "items.0.attributes.0.Detail"},
		{"submission, option", submissions, submitKey, "", `{"items":[{"sku":"SKU-1","name":"Refused","attributes":[{"attribute":"Color","detail":"Teal","option":{"optionId":1,"weight":2}}]}]}`, "items.0.attributes.0.option.weight"},
		{"submission, source", submissions, submitKey, "", `{"items":[{"sku":"SKU-1","name":"Refused","sources":[{"field":"name","url":"https://maker.example/","Quote":"x"}]}]}`, "items.0.sources.0.Quote"},
	}
	// routes that define no body: deletions, and every GET route
	noBody := []struct{ method, what, url, key, token, body, member string }{
		{http.MethodDelete, "claim release", "/api/enrichment/review/claims/" + pending, "", reviewer, `{"force":true}`, "force"},
		{http.MethodDelete, "webhook deletion", "/api/enrichment/webhooks/" + store.FormatID(hook.ID), submitKey, "", `{"cascade":true}`, "cascade"},
		{http.MethodGet, "export", "/api/enrichment/products", readKey, "", `{"foo":1}`, "foo"},
		{http.MethodGet, "gaps", "/api/enrichment/gaps", readKey, "", `{"Page":2}`, "Page"},
		{http.MethodGet, "the reviewers' queue", "/api/enrichment/review/queue", "", reviewer, `{"sort":"age-desc"}`, "sort"},
	}
	refused := func(method, what, url, key, token, body, member string) {
		t.Helper()
		req, credential := request, key
		if token != "" {
			req, credential = requestAuth, token
		}
		res := req(h, method, url, credential, body)
		got := res.Body.String()
		if res.Code != 400 || !strings.Contains(got, `"`+member+`":{"code":"validation_unknown_member"`) ||
			!strings.Contains(got, member[strings.LastIndex(member, ".")+1:]) {
			t.Errorf("%s: %d %s; want 400 naming %s", what, res.Code, got, member)
		}
	}
	for _, c := range cases {
		refused(http.MethodPost, c.what, c.url, c.key, c.token, c.body, c.member)
	}
	for _, c := range noBody {
		refused(c.method, c.what, c.url, c.key, c.token, c.body, c.member)
	}
	if got := k.status(accepted); got != enrichment.StatusAccepted {
		t.Errorf("the accepted revision is %s: a refused rollback changed it", got)
	}
	if got := k.status(pending); got != enrichment.StatusPending {
		t.Errorf("the pending revision is %s: a refused decision changed it", got)
	}
	if n := count("webhooks"); n != webhooks {
		t.Errorf("%d webhooks, was %d: a refused subscription stored one", n, webhooks)
	}
	if n := count("webhook_deliveries"); n != deliveries {
		t.Errorf("%d deliveries, was %d: a refused webhook test queued one", n, deliveries)
	}
	if p := k.product(f.A, "SKU-1"); p.GetString("name") == "Refused" {
		t.Error("a refused submission changed SKU-1")
	}
	if n := count("revisions"); n != revisions {
		t.Errorf("%d revisions, was %d: a refused submission stored one", n, revisions)
	}

	// an attribute sent back as the export shows it, its option's members included, is taken
	echo := `{"items":[{"sku":"SKU-1","name":"Kept","attributes":[{"attribute":"Color","detail":"Teal",
		"option":{"optionId":1,"unit":null,"priority":1,"dataType":"STRING","showOnWebsite":true}}]}]}`
	if res := request(h, http.MethodPost, submissions+"?dryRun=true", submitKey, echo); res.Code != 200 || !strings.Contains(res.Body.String(), `"CREATED"`) {
		t.Errorf("an attribute as the export shows it: %d %s", res.Code, res.Body)
	}

	// a GET with an empty body, or an empty object, is answered
	for _, body := range []string{"", "{}", " \n"} {
		if res := request(h, http.MethodGet, "/api/enrichment/products?pageSize=1", readKey, body); res.Code != 200 ||
			!strings.Contains(res.Body.String(), `"items":[{`) || res.Header().Get("ETag") == "" {
			t.Errorf("GET with the body %q: %d %s", body, res.Code, res.Body)
		}
	}

	// an item's unknown field is still ignored, not refused
	res := request(h, http.MethodPost, submissions+"?dryRun=true", submitKey, `{"items":[{"sku":"SKU-1","name":"Kept","gtin":"123"}]}`)
	if res.Code != 200 || !strings.Contains(res.Body.String(), `"ignoredFields":["gtin"]`) {
		t.Errorf("an item's unknown field: %d %s, want it in ignoredFields", res.Code, res.Body)
	}
}
