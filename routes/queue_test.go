package routes_test

import (
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

const queueURL = "/api/enrichment/review/queue"

// The reviewers' queue lists each reviewer their own organization's pending
// revisions only, whatever they name; bad parameters are 400 naming the
// parameter.
func TestReviewQueueTenancy(t *testing.T) {
	f, app, h := served(t)
	st := store.New(app)
	name := "Better"
	ids := map[enrichment.Org]string{}
	for _, tenant := range []fixture.Tenant{f.A, f.B} {
		res, err := st.Proposals().Submit(tenant.Org, tenant.Clients["both"], []enrichment.Proposal{
			{SKU: "SKU-1", Fields: enrichment.Fields{Name: &name}},
		}, store.SubmitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids[tenant.Org] = store.FormatID(*res[0].RevisionID)
	}
	// note: B alone requires a reason, so a queue that covers B says so
	if _, err := app.DB().Update("organizations", dbx.Params{"requireReason": true}, dbx.HashExp{"id": string(f.B.Org)}).Execute(); err != nil {
		t.Fatal(err)
	}
	super := fixture.SuperuserToken(t, app)
	reviewerA := fixture.ReviewerToken(t, app, string(f.A.Org))
	itemOf := func(org enrichment.Org) string { return `{"id":"` + ids[org] + `"` }
	onlyA := `"totalElements":1,"totalPages":1,"bands":[{"band":"0-49","count":0},{"band":"50-79","count":0},{"band":"80-100","count":0},{"band":"none","count":1}]`

	checkReviewerCases(t, h, []reviewerCase{
		{name: "no token", url: queueURL, status: 401},
		{name: "an API key instead", url: queueURL, key: f.A.Keys["both"], status: 401},
		{name: "reviewer of A", url: queueURL, token: reviewerA, status: 200,
			want: []string{itemOf(f.A.Org), onlyA + `,"reasonRequired":false`}, absent: []string{itemOf(f.B.Org)}},
		{name: "reviewer of A asking for B", url: queueURL + "?organization=" + string(f.B.Org), token: reviewerA, status: 404,
			absent: []string{itemOf(f.B.Org)}},
		{name: "reviewer of A naming B's client", url: queueURL + "?client=" + store.FormatID(f.B.Clients["both"]), token: reviewerA, status: 200,
			want: []string{`"items":[]`}},
		{name: "reviewer of A naming B's revision", url: queueURL + "?revision=" + ids[f.B.Org], token: reviewerA, status: 200,
			want: []string{itemOf(f.A.Org)}, absent: []string{itemOf(f.B.Org)}},
		{name: "superuser: every organization", url: queueURL, token: super, status: 200,
			want: []string{itemOf(f.A.Org), itemOf(f.B.Org), `"totalElements":2`, `"reasonRequired":true`}},
		{name: "superuser: organization B", url: queueURL + "?organization=" + string(f.B.Org), token: super, status: 200,
			want: []string{itemOf(f.B.Org), `"reasonRequired":true`}, absent: []string{itemOf(f.A.Org)}},
		{name: "A's revision left out", url: queueURL + "?exclude=" + ids[f.A.Org], token: reviewerA, status: 200,
			want: []string{`"items":[]`, `"totalElements":0`}},
		{name: "a bad client", url: queueURL + "?client=x", token: reviewerA, status: 400, want: []string{`"client":{"code":"validation_invalid_id"`}},
		{name: "a bad sort", url: queueURL + "?sort=name", token: reviewerA, status: 400, want: []string{`"sort":{"code":"validation_in_invalid"`}},
		{name: "a bad exclusion", url: queueURL + "?exclude=1,,2", token: reviewerA, status: 400, want: []string{`"exclude":{"code":"validation_invalid_id"`}},
		{name: "too many exclusions", url: queueURL + "?exclude=1" + strings.Repeat(",1", 5000), token: reviewerA, status: 400,
			want: []string{`"exclude":{"code":"validation_too_many"`}},
		{name: "a long SKU", url: queueURL + "?sku=" + strings.Repeat("s", 201), token: reviewerA, status: 400, want: []string{`"sku":{"code":"validation_length_too_long"`}},
		{name: "a bad page", url: queueURL + "?page=-1", token: reviewerA, status: 400, want: []string{`"page":{`}},
	})
}
