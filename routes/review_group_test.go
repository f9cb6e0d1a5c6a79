package routes_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/catalog-enrichment/enrichment/webhooks"
	"github.com/pocketbase/pocketbase/tests"
)

const (
	vocabularyURL = "/api/enrichment/review/vocabulary"
	planURL       = "/api/enrichment/review/plan"
	decisionsURL  = "/api/enrichment/review/decisions"
)

// submitNames stores, for tenant's API client of kind, one proposal of a
// name per SKU with the confidence given (-1: none) and returns the
// revision ids.
func submitNames(t *testing.T, app *tests.TestApp, tenant fixture.Tenant, kind string, items ...any) []string {
	t.Helper()
	var ps []enrichment.Proposal
	for i := 0; i < len(items); i += 2 {
		sku, confidence := items[i].(string), items[i+1].(int)
		name := fmt.Sprintf("%s by %s", sku, kind)
		p := enrichment.Proposal{SKU: sku, Fields: enrichment.Fields{Name: &name}}
		if confidence >= 0 {
			p.Confidence = &confidence
		}
		ps = append(ps, p)
	}
	res, err := store.New(app).Proposals().Submit(tenant.Org, tenant.Clients[kind], ps, store.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(res))
	for i, r := range res {
		if r.RevisionID == nil {
			t.Fatalf("%s: %s", r.SKU, r.Status)
		}
		ids[i] = store.FormatID(*r.RevisionID)
	}
	return ids
}

// The vocabulary is the enrichment package's values and limits, for
// reviewers and superusers only.
func TestReviewVocabulary(t *testing.T) {
	f, app, h := served(t)
	reviewerA := fixture.ReviewerToken(t, app, string(f.A.Org))
	limits := fmt.Sprintf(`"limits":{"commentLength":%d,"queuePageSize":%d,"bulkMinConfidence":%d,"planRevisions":%d}`,
		enrichment.MaxCommentLength, enrichment.QueuePageSize, enrichment.BulkAcceptMinConfidence, enrichment.MaxPlanRevisions)
	checkReviewerCases(t, h, []reviewerCase{
		{name: "no token", url: vocabularyURL, status: 401},
		{name: "an API key instead", url: vocabularyURL, key: f.A.Keys["both"], status: 401},
		{name: "reviewer", url: vocabularyURL, token: reviewerA, status: 200, want: []string{
			`"bands":[{"value":"80-100","label":"80–100"},{"value":"50-79","label":"50–79"},{"value":"0-49","label":"0–49"},{"value":"none","label":"none"}]`,
			`{"value":"low_quality","label":"Low quality"}`, `{"value":"attributes","label":"Attributes"}`,
			`"sorts":[{"value":"confidence-desc",`, `{"value":"not_applied","label":"not applied"}`, limits}},
		{name: "superuser", url: vocabularyURL, token: fixture.SuperuserToken(t, app), status: 200, want: []string{limits}},
		{name: "POST", method: http.MethodPost, url: vocabularyURL, token: reviewerA, status: 405},
	})
}

// A plan weighs the pending proposals of every client of the reviewer's
// organization, and names the revisions of no other; bad parameters are 400
// naming the parameter.
func TestReviewPlan(t *testing.T) {
	f, app, h := served(t)
	ours := submitNames(t, app, f.A, "both", "BULK-0001", 90, "BULK-0002", 85, "BULK-0003", 79, "BULK-0004", -1)
	theirs := submitNames(t, app, f.A, "submit", "BULK-0002", 95, "BULK-0004", 10)
	ofB := submitNames(t, app, f.B, "both", "SKU-1", 99)
	super := fixture.SuperuserToken(t, app)
	reviewerA := fixture.ReviewerToken(t, app, string(f.A.Org))
	reviewerB := fixture.ReviewerToken(t, app, string(f.B.Org))
	both := store.FormatID(f.A.Clients["both"])
	item := func(id string) string { return `{"id":"` + id + `",` }
	accept := func(ids ...string) string {
		var items []string
		for _, id := range ids {
			items = append(items, item(id))
		}
		return `"accept":[` + strings.Join(items, "")
	}
	lost := `"lost":[{"field":"name","to":{"id":"` + theirs[0] + `","sku":"BULK-0002","status":"pending","confidence":95,"confidenceBand":"80-100",`

	checkReviewerCases(t, h, []reviewerCase{
		{name: "no token", url: planURL, status: 401},
		{name: "an API key instead", url: planURL, key: f.A.Keys["both"], status: 401},
		{name: "bulk, one client", url: planURL + "?client=" + both, token: reviewerA, status: 200,
			want:   []string{accept(ours[0]), `"fields":["name"]`, `"left":[` + item(ours[1]), lost, `"clientName":"submit"`},
			absent: []string{item(ours[2]), item(ours[3]), item(ofB[0])}},
		{name: "bulk, every client", url: planURL, token: reviewerA, status: 200,
			want: []string{accept(ours[0]), item(theirs[0]), `"left":[` + item(ours[1])}, absent: []string{item(ofB[0])}},
		{name: "a selection, in its order; no confidence counts as 0",
			url: planURL + "?revisions=" + theirs[1] + "," + ours[3] + "," + ours[2], token: reviewerA, status: 200,
			want: []string{`"accept":[` + item(theirs[1]), `"fields":["name"]},` + item(ours[2]), `"left":[` + item(ours[3]),
				`"lost":[{"field":"name","to":{"id":"` + theirs[1] + `"`}},
		{name: "reviewer of A naming B's revision", url: planURL + "?revisions=" + ofB[0], token: reviewerA, status: 200,
			want: []string{`{"accept":[],"left":[]}`}},
		{name: "reviewer of A naming B's client", url: planURL + "?client=" + store.FormatID(f.B.Clients["both"]), token: reviewerA, status: 200,
			want: []string{`{"accept":[],"left":[]}`}},
		{name: "reviewer of A asking for B", url: planURL + "?organization=" + string(f.B.Org), token: reviewerA, status: 404,
			absent: []string{item(ofB[0])}},
		{name: "reviewer of B", url: planURL, token: reviewerB, status: 200, want: []string{accept(ofB[0])}, absent: []string{item(ours[0])}},
		{name: "superuser: every organization", url: planURL, token: super, status: 200, want: []string{item(ours[0]), item(ofB[0])}},
		{name: "superuser: organization B", url: planURL + "?organization=" + string(f.B.Org), token: super, status: 200,
			want: []string{item(ofB[0])}, absent: []string{item(ours[0])}},
		{name: "a bad client", url: planURL + "?client=x", token: reviewerA, status: 400, want: []string{`"client":{"code":"validation_invalid_id"`}},
		{name: "no revisions", url: planURL + "?revisions=", token: reviewerA, status: 400, want: []string{`"revisions":{"code":"validation_invalid_id"`}},
		{name: "a bad revision", url: planURL + "?revisions=1,,2", token: reviewerA, status: 400, want: []string{`"revisions":{"code":"validation_invalid_id"`}},
		{name: "a revision twice", url: planURL + "?revisions=1,2,1", token: reviewerA, status: 400, want: []string{`"revisions":{"code":"validation_duplicate"`}},
		{name: "too many revisions", url: planURL + "?revisions=1" + strings.Repeat(",1", enrichment.MaxPlanRevisions), token: reviewerA, status: 400,
			want: []string{`"revisions":{"code":"validation_too_many"`}},
		{name: "a client and revisions", url: planURL + "?client=" + both + "&revisions=" + ours[0], token: reviewerA, status: 400,
			want: []string{`"client":{"code":"validation_not_both"`}},
	})

	// a selected revision decided meanwhile is planned as it is, so that
	// its decision is refused and reported
	rev, err := app.FindRecordById("revisions", ours[2])
	if err != nil {
		t.Fatal(err)
	}
	rev.Set("status", "rejected")
	if err := app.Save(rev); err != nil {
		t.Fatal(err)
	}
	checkReviewerCases(t, h, []reviewerCase{
		{name: "a selection decided meanwhile", url: planURL + "?revisions=" + ours[2], token: reviewerA, status: 200,
			want: []string{`"accept":[` + item(ours[2]) + `"sku":"BULK-0003","status":"rejected",`}},
	})
}

// A group decision decides each revision as a records API update would, in
// order: a refusal is reported with the records API's answer and stops
// nothing unless asked; another organization's revision is not found.
func TestReviewDecisions(t *testing.T) {
	f, app, h := served(t)
	ours := submitNames(t, app, f.A, "both", "BULK-0001", 90, "BULK-0002", 85, "BULK-0003", 79, "BULK-0004", -1, "BULK-0005", 50)
	ofB := submitNames(t, app, f.B, "both", "SKU-1", 99)
	super := fixture.SuperuserToken(t, app)
	reviewerA := fixture.ReviewerToken(t, app, string(f.A.Org))
	accept := func(ids ...string) string {
		var out []string
		for _, id := range ids {
			out = append(out, `{"id":"`+id+`","status":"accepted","comment":"Thanks"}`)
		}
		return `{"decisions":[` + strings.Join(out, ",") + `]}`
	}
	status := func(id string) string {
		r, err := app.FindRecordById("revisions", id)
		if err != nil {
			t.Fatal(err)
		}
		return r.GetString("status")
	}

	checkReviewerCases(t, h, []reviewerCase{
		{name: "no token", method: http.MethodPost, url: decisionsURL, body: accept(ours[0]), status: 401},
		{name: "an API key instead", method: http.MethodPost, url: decisionsURL, key: f.A.Keys["both"], body: accept(ours[0]), status: 401},
		{name: "reviewer of A deciding B's", method: http.MethodPost, url: decisionsURL, token: reviewerA, body: accept(ofB[0]), status: 200,
			want: []string{`"decided":0,"refused":1,"skipped":0`, `{"id":"` + ofB[0] + `","outcome":"refused","error":{"data":{},"message":"The requested resource wasn't found.","status":404}}`}},
		{name: "reviewer of A asking for B", method: http.MethodPost, url: decisionsURL + "?organization=" + string(f.B.Org), token: reviewerA,
			body: accept(ofB[0]), status: 404},
		{name: "a GET", url: decisionsURL, token: reviewerA, status: 405},
		{name: "not JSON", method: http.MethodPost, url: decisionsURL, token: reviewerA, body: `decisions`, status: 400},
		{name: "nothing", method: http.MethodPost, url: decisionsURL, token: reviewerA, body: `{"decisions":[]}`, status: 400,
			want: []string{`"decisions":{"code":"validation_required"`}},
		{name: "a bad id", method: http.MethodPost, url: decisionsURL, token: reviewerA, body: `{"decisions":[{"id":"x","status":"accepted"}]}`, status: 400,
			want: []string{`"decisions.0.id":{"code":"validation_invalid_id"`}},
		{name: "a revision twice", method: http.MethodPost, url: decisionsURL, token: reviewerA, body: accept(ours[0], ours[0]), status: 400,
			want: []string{`"decisions.1.id":{"code":"validation_duplicate"`}},
		{name: "a revision twice, once as an integer", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: `{"decisions":[{"id":"` + ours[0] + `","status":"accepted"},{"id":` + ours[0] + `,"status":"accepted"}]}`, status: 400,
			want: []string{`"decisions.1.id":{"code":"validation_duplicate"`}},
		{name: "an id neither string nor integer", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: `{"decisions":[{"id":1.5,"status":"accepted"}]}`, status: 400, want: []string{`"decisions.0.id":{"code":"validation_invalid_type"`}},
		{name: "no status", method: http.MethodPost, url: decisionsURL, token: reviewerA, body: `{"decisions":[{"id":"1"}]}`, status: 400,
			want: []string{`"decisions.0.status":{"code":"validation_in_invalid"`}},
		{name: "a list of statuses", method: http.MethodPost, url: decisionsURL, token: reviewerA, body: `{"decisions":[{"id":"1","status":["accepted"]}]}`, status: 400,
			want: []string{`"decisions.0.status":{"code":"validation_invalid_type"`}},
	})
	if got := status(ofB[0]); got != "pending" {
		t.Fatalf("B's revision is %s after A's reviewer tried it", got)
	}

	// happy rows: the comment of a fully accepted revision is kept; a
	// refused one (a reason where all is applied) stops nothing
	body := `{"decisions":[{"id":"` + ours[0] + `","status":"accepted","comment":"Thanks"},` +
		`{"id":"` + ours[1] + `","status":"accepted","reason":"other"},` +
		`{"id":` + ours[2] + `,"status":"rejected","reason":"off_brand","comment":"Not ours"}]}` // the id as the integer the API shows
	res := requestAuth(h, http.MethodPost, decisionsURL, reviewerA, body)
	for _, want := range []string{`"decided":2,"refused":1,"skipped":0`,
		`{"id":"` + ours[0] + `","outcome":"decided","revision":{"id":"` + ours[0] + `","status":"accepted","approvedFields":["name"],"reviewedAt":"`,
		`"reason":"","comment":"Thanks"}}`,
		`{"id":"` + ours[1] + `","outcome":"refused","error":{"data":{"reason":{`, `"code":"validation_reason_not_allowed"`,
		`"status":"rejected","approvedFields":[],"reviewedAt":"`, `"reason":"off_brand","comment":"Not ours"}}`} {
		if res.Code != 200 || !strings.Contains(res.Body.String(), want) {
			t.Errorf("group decision: %d, no %s in %s", res.Code, want, res.Body)
		}
	}
	rev, err := app.FindRecordById("revisions", ours[0])
	if err != nil {
		t.Fatal(err)
	}
	if rev.GetString("reviewer") != fixture.ReviewerID(t, app, string(f.A.Org)) || rev.GetString("comment") != "Thanks" {
		t.Errorf("decided by %q with comment %q", rev.GetString("reviewer"), rev.GetString("comment"))
	}
	if name := productName(t, app, f.A, "BULK-0001"); name != "BULK-0001 by both" {
		t.Errorf("BULK-0001 name %q after the group accept", name)
	}
	if got := status(ours[1]); got != "pending" {
		t.Errorf("the refused revision is %s", got)
	}

	// stop on failure: the rest are skipped, undecided
	body = `{"stopOnFailure":true,"decisions":[{"id":"` + ours[0] + `","status":"rejected"},{"id":"` + ours[3] + `","status":"rejected"}]}`
	res = requestAuth(h, http.MethodPost, decisionsURL, reviewerA, body)
	if want := `"decided":0,"refused":1,"skipped":1`; res.Code != 200 || !strings.Contains(res.Body.String(), want) ||
		!strings.Contains(res.Body.String(), `{"id":"`+ours[3]+`","outcome":"skipped"}`) {
		t.Errorf("stop on failure: %d %s", res.Code, res.Body)
	}
	if got := status(ours[3]); got != "pending" {
		t.Errorf("a skipped revision is %s", got)
	}

	// a superuser decides in any organization
	res = requestAuth(h, http.MethodPost, decisionsURL, super, accept(ofB[0]))
	if res.Code != 200 || !strings.Contains(res.Body.String(), `"decided":1,`) || status(ofB[0]) != "accepted" {
		t.Errorf("superuser: %d %s", res.Code, res.Body)
	}
}

// productName reads the name of tenant's product with SKU sku.
func productName(t *testing.T, app *tests.TestApp, tenant fixture.Tenant, sku string) string {
	t.Helper()
	p, err := app.FindRecordById("products", store.FormatID(tenant.Products[sku]))
	if err != nil {
		t.Fatal(err)
	}
	return p.GetString("name")
}

// A group decision has every effect of the same decision made through the
// records API: the revision's stamps, the product, the metric counters and
// the vendor's webhook events move alike.
func TestReviewDecisionsLikeRecordsAPI(t *testing.T) {
	t.Setenv(webhooks.AllowPrivateEnv, "1")
	f, app, h := served(t)
	ids := submitNames(t, app, f.A, "both", "BULK-0001", 90, "BULK-0002", 90)
	key := f.A.Keys["both"]
	if r := request(h, http.MethodPost, "/api/enrichment/webhooks", key,
		`{"url":"http://127.0.0.1:9/hook","events":["revision.accepted"]}`); r.Code != 201 {
		t.Fatalf("subscribe: %d %s", r.Code, r.Body)
	}
	reviewerA := fixture.ReviewerToken(t, app, string(f.A.Org))
	effects := func() string {
		m := decode[enrichment.AcceptanceMetrics](t, request(h, http.MethodGet, "/api/enrichment/acceptance-rate", key, "").Body.Bytes())
		var deliveries int
		if err := app.DB().NewQuery("SELECT COUNT(*) FROM " + schema.WebhookDeliveries).Row(&deliveries); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("accepted %d, reviewed %d, deliveries %d", m.Accepted, m.Reviewed, deliveries)
	}
	if got, want := effects(), "accepted 0, reviewed 0, deliveries 0"; got != want {
		t.Fatalf("before: %s, want %s", got, want)
	}
	if r := requestAuth(h, http.MethodPatch, "/api/collections/revisions/records/"+ids[0], reviewerA, `{"status":"accepted"}`); r.Code != 200 {
		t.Fatalf("records API: %d %s", r.Code, r.Body)
	}
	if got, want := effects(), "accepted 1, reviewed 1, deliveries 1"; got != want {
		t.Fatalf("after the records API: %s, want %s", got, want)
	}
	if r := requestAuth(h, http.MethodPost, decisionsURL, reviewerA, `{"decisions":[{"id":"`+ids[1]+`","status":"accepted"}]}`); r.Code != 200 ||
		!strings.Contains(r.Body.String(), `"decided":1,`) {
		t.Fatalf("group: %d %s", r.Code, r.Body)
	}
	if got, want := effects(), "accepted 2, reviewed 2, deliveries 2"; got != want {
		t.Errorf("after the group decision: %s, want %s", got, want)
	}
	stamps := func(id string) string {
		r, err := app.FindRecordById("revisions", id)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%s %v by %s, closed when reviewed: %v", r.GetString("status"), r.GetStringSlice("approvedFields"),
			r.GetString("reviewer"), r.GetString("reviewedAt") != "" && r.GetString("closedAt") == r.GetString("reviewedAt"))
	}
	if a, b := stamps(ids[0]), stamps(ids[1]); a != b {
		t.Errorf("by the records API: %s; by the group: %s", a, b)
	}
	for _, sku := range []string{"BULK-0001", "BULK-0002"} {
		if name := productName(t, app, f.A, sku); name != sku+" by both" {
			t.Errorf("%s name %q", sku, name)
		}
	}
}
