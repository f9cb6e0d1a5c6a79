package hooks_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tests"
)

// stored checks a revision's status, reason and comment as stored.
func stored(t testing.TB, app *tests.TestApp, id, status, reason, comment string) {
	t.Helper()
	r := revision(t, app, id)
	if r.GetString("status") != status || r.GetString("reason") != reason || r.GetString("comment") != comment {
		t.Errorf("revision %s: status %q reason %q comment %q, want %q %q %q", id,
			r.GetString("status"), r.GetString("reason"), r.GetString("comment"), status, reason, comment)
	}
	closed := r.GetDateTime("closedAt")
	if status == enrichment.StatusPending && !closed.IsZero() {
		t.Errorf("revision %s: pending with closedAt %s", id, closed)
	}
	if status != enrichment.StatusPending && closed.IsZero() {
		t.Errorf("revision %s: %s without closedAt", id, status)
	}
}

// setOrg changes a field of organization A before the request.
func setOrg(field string, value any) func(testing.TB, *tests.TestApp) {
	return func(t testing.TB, app *tests.TestApp) {
		f := fixture.Get(t)
		if _, err := app.DB().Update("organizations", dbx.Params{field: value}, dbx.HashExp{"id": string(f.A.Org)}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
}

// age moves a revision's submission back by days.
func age(id string, days int) func(testing.TB, *tests.TestApp) {
	return func(t testing.TB, app *tests.TestApp) {
		created := store.FormatTime(clock.Now(app).Add(-time.Duration(days) * 24 * time.Hour))
		if _, err := app.DB().Update("revisions", dbx.Params{"created": created}, dbx.HashExp{"id": id}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReasonsAndComments(t *testing.T) {
	comment := strings.Repeat("é", 2000)
	run(t, []call{
		{name: "reject with a reason and a comment, superuser", url: revFull, as: "super",
			body: `{"status":"rejected","reason":"inaccurate","comment":"The colour is wrong."}`, status: 200,
			content: []string{`"reason":"inaccurate"`, `"comment":"The colour is wrong."`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				stored(t, app, revFull, "rejected", "inaccurate", "The colour is wrong.")
			}},
		{name: "reject with a reason, reviewer of the organization", url: revFull, as: reviewerA,
			body: `{"status":"rejected","reason":"off_brand"}`, status: 200,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { stored(t, app, revFull, "rejected", "off_brand", "") }},
		{name: "reviewer of another organization", url: revFull, as: reviewerB,
			body: `{"status":"rejected","reason":"off_brand"}`, status: 404,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }},
		{name: "guest", url: revFull, body: `{"status":"rejected","reason":"off_brand"}`, status: 404,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }},
		{name: "a partial approval with a reason", url: revPartial, as: reviewerA,
			body: `{"status":"accepted","approvedFields":["name"],"reason":"incomplete","comment":"Slug next time."}`, status: 200,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				stored(t, app, revPartial, "accepted", "incomplete", "Slug next time.")
			}},
		{name: "a full approval with a comment", url: revPartial, as: reviewerA,
			body: `{"status":"accepted","comment":"` + comment + `"}`, status: 200,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { stored(t, app, revPartial, "accepted", "", comment) }},
		{name: "a full approval with a reason is refused", url: revPartial, as: reviewerA,
			body: `{"status":"accepted","reason":"other"}`, status: 400,
			content: []string{`"reason":{"code":"validation_reason_not_allowed"`},
			check:   func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revPartial) }},
		{name: "approving every field by name is a full approval", url: revPartial, as: reviewerA,
			body: `{"status":"accepted","approvedFields":["name","slug","attributes"],"reason":"other"}`, status: 400,
			content: []string{`"reason":{"code":"validation_reason_not_allowed"`}},
		{name: "an unknown reason", url: revFull, as: reviewerA, body: `{"status":"rejected","reason":"ugly"}`, status: 400,
			content: []string{`"reason":{`}, check: func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }},
		{name: "a comment over 2000 characters", url: revFull, as: reviewerA,
			body: `{"status":"rejected","comment":"` + comment + `x"}`, status: 400, content: []string{`"comment":{`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }},
		{name: "a reason without a decision", url: revFull, as: reviewerA, body: `{"reason":"other"}`, status: 400,
			content: []string{`"reason":{"code":"validation_no_decision"`}},
		{name: "a comment without a decision", url: revFull, as: reviewerA, body: `{"comment":"later"}`, status: 400,
			content: []string{`"comment":{"code":"validation_no_decision"`}},
		{name: "reason required: a rejection without one", url: revFull, as: reviewerA, before: setOrg("requireReason", true),
			body: `{"status":"rejected"}`, status: 400, content: []string{`"reason":{"code":"validation_reason_required"`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }},
		{name: "reason required: a partial approval without one", url: revPartial, as: reviewerA, before: setOrg("requireReason", true),
			body: `{"status":"accepted","approvedFields":["slug"]}`, status: 400, content: []string{`"reason":{"code":"validation_reason_required"`}},
		{name: "reason required: a full approval needs none", url: revPartial, as: reviewerA, before: setOrg("requireReason", true),
			body: `{"status":"accepted"}`, status: 200, content: []string{`"status":"accepted"`, `"reason":""`}},
		{name: "reason required: a rejection with one", url: revFull, as: "super", before: setOrg("requireReason", true),
			body: `{"status":"rejected","reason":"duplicate"}`, status: 200, content: []string{`"status":"rejected"`, `"reason":"duplicate"`}},
		{name: "reason required in another organization only", url: revB, as: reviewerB, before: setOrg("requireReason", true),
			body: `{"status":"rejected"}`, status: 200, content: []string{`"id":"` + revB + `"`, `"status":"rejected"`, `"reason":""`}},
		{name: "a reason cannot be added after the decision", url: revRejected, as: "super", body: `{"reason":"inaccurate"}`, status: 400,
			content: []string{`"status":{"code":"validation_decision_final"`}},
		{name: "status as an array is refused", url: revFull, as: reviewerA, body: `{"status":["pending","accepted"]}`, status: 400,
			content: []string{`"status":{"code":"validation_invalid_status"`},
			check:   func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }},
		{name: "status as a number is refused", url: revFull, as: "super", body: `{"status":1}`, status: 400,
			content: []string{`"status":{"code":"validation_invalid_status"`},
			check:   func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }},
		{name: "a reviewer cannot supersede", url: revFull, as: reviewerA, body: `{"status":"superseded"}`, status: 400,
			content: []string{`"status":{"code":"validation_service_status"`}},
		{name: "a reviewer cannot expire", url: revFull, as: "super", body: `{"status":"expired"}`, status: 400,
			content: []string{`"status":{"code":"validation_service_status"`}},
		{name: "closedAt cannot be sent", url: revFull, as: "super",
			body: `{"status":"rejected","closedAt":"2020-01-01 00:00:00.000Z"}`, status: 200,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				if at := revision(t, app, revFull).GetDateTime("closedAt").Time(); time.Since(at) > time.Minute {
					t.Errorf("closedAt %v, want the decision's time", at)
				}
			}},
	})
}

func TestExpiryOnDecision(t *testing.T) {
	run(t, []call{
		{name: "an overdue revision is refused and expires", url: revFull, as: reviewerA, before: age(revFull, 91),
			body: `{"status":"accepted"}`, status: 400, content: []string{`"status":{"code":"validation_revision_expired"`, `90 days`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				stored(t, app, revFull, "expired", "", "")
				if p := productOf(t, app, fixture.Get(t).A, "SKU-1"); p.GetString("name") != "Runner" {
					t.Errorf("the product changed: %s", p.GetString("name"))
				}
			}},
		{name: "a revision within its time is decided", url: revFull, as: reviewerA, before: age(revFull, 89),
			body: `{"status":"rejected"}`, status: 200, content: []string{`"status":"rejected"`}},
		{name: "an organization whose proposals never expire", url: revFull, as: reviewerA,
			before: func(t testing.TB, app *tests.TestApp) {
				age(revFull, 4000)(t, app)
				setOrg("proposalTtlDays", 0)(t, app)
			},
			body: `{"status":"rejected"}`, status: 200, content: []string{`"status":"rejected"`}},
		{name: "a shorter time to live", url: revFull, as: "super",
			before: func(t testing.TB, app *tests.TestApp) { age(revFull, 8)(t, app); setOrg("proposalTtlDays", 7)(t, app) },
			body:   `{"status":"rejected"}`, status: 400,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { stored(t, app, revFull, "expired", "", "") }},
		{name: "an expired revision cannot be decided", url: revFull, as: "super",
			before: func(t testing.TB, app *tests.TestApp) {
				age(revFull, 91)(t, app)
				if _, err := store.New(app).Proposals().ExpireOverdue(clock.Now(app)); err != nil {
					t.Fatal(err)
				}
			},
			body: `{"status":"rejected"}`, status: 400, content: []string{`"status":{"code":"validation_decision_final"`, "already expired"}},
	})
}

func TestExpireOverdue(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	seedReview(t, app, f)
	for _, id := range []string{revFull, revB} {
		age(id, 100)(t, app)
	}
	age(revPartial, 80)(t, app)
	if _, err := app.DB().Update("organizations", dbx.Params{"proposalTtlDays": 0}, dbx.HashExp{"id": string(f.B.Org)}).Execute(); err != nil {
		t.Fatal(err)
	}
	n, err := store.New(app).Proposals().ExpireOverdue(clock.Now(app))
	if err != nil || n != 1 {
		t.Fatalf("expired %d, %v; want 1 (A's overdue one; B's never expire)", n, err)
	}
	stored(t, app, revFull, "expired", "", "")
	pending(t, app, revPartial)
	pending(t, app, revB)
	page, err := store.New(app).Proposals().ClientRevisions(f.A.Org, f.A.Clients["submit"], store.RevisionQuery{PageSize: 10, Status: "expired"})
	if err != nil || len(page.Items) != 1 || page.Items[0].ClosedAt == nil || page.Items[0].ReviewedAt != nil ||
		page.Items[0].Fields[0] != (enrichment.FieldOutcome{Field: "name", Outcome: enrichment.OutcomeExpired}) {
		t.Errorf("the vendor's view of the expired revision: %+v, %v", page.Items, err)
	}
	if got := revision(t, app, revAccepted).GetString("status"); got != "accepted" {
		t.Errorf("a decided revision became %s", got)
	}
	if n, err := store.New(app).Proposals().ExpireOverdue(clock.Now(app)); err != nil || n != 0 {
		t.Errorf("a second run expired %d, %v", n, err)
	}
}

func TestOrganizationDefaults(t *testing.T) {
	ttl := func(want int) func(testing.TB, *tests.TestApp, []byte) {
		return func(t testing.TB, app *tests.TestApp, _ []byte) {
			org, err := app.FindFirstRecordByData("organizations", "name", "Gamma")
			if err != nil || org.GetInt("proposalTtlDays") != want || org.GetBool("requireReason") {
				t.Errorf("created %v, %v; want proposalTtlDays %d", org, err, want)
			}
		}
	}
	const orgs = "/api/collections/organizations/records"
	run(t, []call{
		{name: "no time to live given: the default", method: http.MethodPost, url: orgs, as: "super",
			body: `{"name":"Gamma"}`, status: 200, check: ttl(enrichment.DefaultProposalTTLDays)},
		{name: "never", method: http.MethodPost, url: orgs, as: "super",
			body: `{"name":"Gamma","proposalTtlDays":0}`, status: 200, check: ttl(0)},
		{name: "a week", method: http.MethodPost, url: orgs, as: "super",
			body: `{"name":"Gamma","proposalTtlDays":7}`, status: 200, check: ttl(7)},
	})
	app := fixture.Get(t).NewApp(t)
	t.Cleanup(app.Cleanup)
	id, err := store.New(app).Accounts().CreateOrg("Delta")
	if err != nil {
		t.Fatal(err)
	}
	if org, err := app.FindRecordById("organizations", store.FormatID(id)); err != nil || org.GetInt("proposalTtlDays") != enrichment.DefaultProposalTTLDays {
		t.Errorf("org create on the command line: %v, %v", org, err)
	}
}

func TestHistoryIsKept(t *testing.T) {
	f := fixture.Get(t)
	clientURL := func(id int64) string { return "/api/collections/api_clients/records/" + store.FormatID(id) }
	run(t, []call{
		{name: "a client with revisions cannot be deleted", method: http.MethodDelete, url: clientURL(f.A.Clients["submit"]),
			as: "super", status: 400, content: []string{"revoke its key instead"},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				if _, err := app.FindRecordById("api_clients", store.FormatID(f.A.Clients["submit"])); err != nil {
					t.Errorf("the client is gone: %v", err)
				}
				pending(t, app, revFull)
			}},
		{name: "a client without revisions can be deleted", method: http.MethodDelete, url: clientURL(f.A.Clients["read"]),
			as: "super", status: 204, noBody: true,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				if _, err := app.FindRecordById("api_clients", store.FormatID(f.A.Clients["read"])); err == nil {
					t.Error("the client is still there")
				}
			}},
		{name: "a revision cannot be deleted", method: http.MethodDelete, url: "/api/collections/revisions/records/" + revRejected,
			as: "super", status: 400, content: []string{"deleted only with their organization"}},
		{name: "a product's deletion keeps its revisions", method: http.MethodDelete,
			url: "/api/collections/products/records/" + store.FormatID(f.A.Products["SKU-1"]), as: "super", status: 204,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				if r := revision(t, app, revFull); r.GetString("product") != "" || r.GetString("status") != "pending" {
					t.Errorf("revision after its product's deletion: %v", r.FieldsData())
				}
			}},
	})
}
