package jobs_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/schema"
)

// TestTrustPolicyRecords checks the collection's rules: reviewers of the
// organization list, view, create and update its policies; the defaults
// and ranges; the service's fields ignored from every request; nobody
// else sees a policy.
func TestTrustPolicyRecords(t *testing.T) {
	w := newTrustWorld(t)
	a, b := w.f.A, w.f.B
	const records = "/api/collections/trust_policies/records"
	base := fmt.Sprintf(`"organization":"%s","apiClient":"%d","fields":["name"]`, a.Org, a.Clients["both"])

	// defaults, and the service's fields ignored on create
	p := w.policy(`{` + base + `,"state":"active","measuredPrecision":1,"measuredReviewed":999,"stateReason":"trust me","stateChangedAt":"2020-01-01 00:00:00.000Z"}`)
	if p.GetFloat("targetPrecision") != 0.95 || p.GetInt("minReviewed") != 200 || p.GetFloat("auditRate") != 0.05 || p.GetBool("enabled") {
		t.Errorf("defaults: target %v minReviewed %v auditRate %v enabled %v", p.GetFloat("targetPrecision"), p.GetInt("minReviewed"),
			p.GetFloat("auditRate"), p.GetBool("enabled"))
	}
	if p.GetString("state") != enrichment.PolicyLearning || p.GetInt("measuredReviewed") != 0 || p.GetFloat("measuredPrecision") != 0 ||
		p.GetString("stateReason") == "trust me" || p.GetString("stateReason") == "" || p.GetDateTime("stateChangedAt").Time().Year() == 2020 {
		t.Errorf("service fields taken from the request: state %q reviewed %d precision %v reason %q changed %s", p.GetString("state"),
			p.GetInt("measuredReviewed"), p.GetFloat("measuredPrecision"), p.GetString("stateReason"), p.GetDateTime("stateChangedAt"))
	}

	// ... from the dashboard (a superuser) too
	su := fixture.SuperuserToken(t, w.app)
	rec := fixture.Send(w.h, http.MethodPost, records, "Authorization", su,
		`{`+base+`,"enabled":true,"state":"active","measuredPrecision":1,"measuredReviewed":999,"stateReason":"trust me","enabledAt":"2020-01-01 00:00:00.000Z"}`)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"state":"learning"`) || !strings.Contains(rec.Body.String(), `"measuredReviewed":0`) ||
		strings.Contains(rec.Body.String(), "trust me") || strings.Contains(rec.Body.String(), "2020-01-01") {
		t.Errorf("a superuser's create wrote service fields: %d %s", rec.Code, rec.Body)
	}

	// the service's fields ignored on update, by a reviewer and a superuser
	for _, token := range []string{w.token, su} {
		rec := fixture.Send(w.h, http.MethodPatch, records+"/"+p.Id, "Authorization", token,
			`{"state":"active","measuredReviewed":5000,"measuredPrecision":1,"stateReason":"trust me","minConfidence":70}`)
		if rec.Code != 200 {
			t.Fatalf("update: %d %s", rec.Code, rec.Body)
		}
		got := w.record(schema.TrustPolicies, p.Id)
		if got.GetString("state") != enrichment.PolicyLearning || got.GetInt("measuredReviewed") != 0 || got.GetString("stateReason") == "trust me" {
			t.Errorf("update wrote service fields: %v", got.FieldsData())
		}
		if got.GetInt("minConfidence") != 70 {
			t.Errorf("minConfidence %d, want 70", got.GetInt("minConfidence"))
		}
	}

	// a reviewer's create without the organization is told what is missing,
	// through the collection's name or its id
	policies, err := w.app.FindCollectionByNameOrId("trust_policies")
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{records, "/api/collections/" + policies.Id + "/records"} {
		for _, body := range []string{fmt.Sprintf(`{"apiClient":"%d","fields":["name"]}`, a.Clients["both"]),
			fmt.Sprintf(`{"organization":"","apiClient":"%d","fields":["name"]}`, a.Clients["both"])} {
			if rec := w.send(http.MethodPost, url, body); rec.Code != 400 ||
				!strings.Contains(rec.Body.String(), `"organization":{"code":"validation_required"`) {
				t.Errorf("a create without the organization at %s: %d %s", url, rec.Code, rec.Body)
			}
		}
	}

	// ranges, each named
	for _, c := range []struct{ body, field, message string }{
		{`"minConfidence":101`, "minConfidence", "Must be a whole number from 0 to 100."},
		{`"minConfidence":50.5`, "minConfidence", "whole number"},
		{`"targetPrecision":0.4`, "targetPrecision", "Must be from 0.5 to 1."},
		{`"targetPrecision":1.01`, "targetPrecision", "Must be from 0.5 to 1."},
		{`"minReviewed":19`, "minReviewed", "Must be a whole number of at least 20."},
		{`"auditRate":1.5`, "auditRate", "Must be from 0.01 to 1."},
		{`"auditRate":0.001`, "auditRate", "Must be from 0.01 to 1."},
		{`"auditRate":0`, "auditRate", "Must be from 0.01 to 1."}, // never the default
		{`"auditRate":-0.5`, "auditRate", "Must be from 0.01 to 1."},
	} {
		rec := w.send(http.MethodPost, records, `{`+base+`,`+c.body+`}`)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"`+c.field+`":{"code":"validation_out_of_range","message":"`) ||
			!strings.Contains(rec.Body.String(), c.message) {
			t.Errorf("%s: %d %s", c.body, rec.Code, rec.Body)
		}
		rec = w.patch(records+"/"+p.Id, `{`+c.body+`}`)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"`+c.field+`":{"code":"validation_out_of_range"`) {
			t.Errorf("update %s: %d %s", c.body, rec.Code, rec.Body)
		}
	}
	for _, body := range []string{
		fmt.Sprintf(`{"organization":"%s","apiClient":"%d","fields":[]}`, a.Org, a.Clients["both"]),
		fmt.Sprintf(`{"organization":"%s","apiClient":"%d"}`, a.Org, a.Clients["both"]),
	} {
		if rec := w.send(http.MethodPost, records, body); rec.Code != 400 || !strings.Contains(rec.Body.String(), `"fields":{"code":`) {
			t.Errorf("no fields: %d %s", rec.Code, rec.Body)
		}
	}
	other := fmt.Sprintf(`{"organization":"%s","apiClient":"%d","fields":["name"]}`, a.Org, b.Clients["both"])
	if rec := w.send(http.MethodPost, records, other); rec.Code != 400 || !strings.Contains(rec.Body.String(), `"apiClient":{"code":"validation_other_organization"`) {
		t.Errorf("another organization's client: %d %s", rec.Code, rec.Body)
	}

	// other identities
	tokenB := fixture.ReviewerToken(t, w.app, string(b.Org))
	asB := func(method, url, body string) (int, string) {
		rec := fixture.Send(w.h, method, url, "Authorization", tokenB, body)
		return rec.Code, rec.Body.String()
	}
	if code, body := asB(http.MethodGet, records, ""); code != 200 || !strings.Contains(body, `"totalItems":0`) {
		t.Errorf("B lists A's policies: %d %s", code, body)
	}
	if code, _ := asB(http.MethodGet, records+"/"+p.Id, ""); code != 404 {
		t.Errorf("B views A's policy: %d", code)
	}
	if code, _ := asB(http.MethodPatch, records+"/"+p.Id, `{"enabled":true}`); code != 404 {
		t.Errorf("B updates A's policy: %d", code)
	}
	if code, _ := asB(http.MethodPost, records, `{`+base+`}`); code != 400 {
		t.Errorf("B creates a policy of A: %d", code)
	}
	if code, _ := asB(http.MethodDelete, records+"/"+p.Id, ""); code < 400 {
		t.Errorf("B deletes A's policy: %d", code)
	}
	if rec := w.send(http.MethodGet, records, ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"totalItems":2`) {
		t.Errorf("A lists its policies: %d %s", rec.Code, rec.Body)
	}
	for _, key := range []string{a.Keys["both"], a.Keys["read"]} {
		rec := fixture.Send(w.h, http.MethodGet, records, routes.KeyHeader, key, "")
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"totalItems":0`) {
			t.Errorf("an API key lists policies: %d %s", rec.Code, rec.Body)
		}
		if rec := fixture.Send(w.h, http.MethodGet, records+"/"+p.Id, routes.KeyHeader, key, ""); rec.Code != 404 {
			t.Errorf("an API key views a policy: %d %s", rec.Code, rec.Body)
		}
	}
	if rec := fixture.Send(w.h, http.MethodGet, records, "", "", ""); !strings.Contains(rec.Body.String(), `"totalItems":0`) {
		t.Errorf("a guest lists policies: %d %s", rec.Code, rec.Body)
	}

	// a policy that decided nothing may be deleted (from the dashboard)
	if rec := fixture.Send(w.h, http.MethodDelete, records+"/"+p.Id, "Authorization", su, ""); rec.Code != 204 {
		t.Errorf("delete a policy that decided nothing: %d %s", rec.Code, rec.Body)
	}
}
