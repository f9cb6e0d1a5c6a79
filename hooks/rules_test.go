package hooks_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/tests"
)

// listOf checks a list response: exactly total items, all of organization org.
func listOf(org enrichment.Org, total int) func(testing.TB, *tests.TestApp, []byte) {
	return func(t testing.TB, _ *tests.TestApp, body []byte) {
		l := decode[list](t, body)
		if l.TotalItems != total || (total > 0 && len(l.Items) == 0) {
			t.Errorf("totalItems %d (%d items), want %d", l.TotalItems, len(l.Items), total)
		}
		for _, it := range l.Items {
			if it["organization"] != string(org) {
				t.Errorf("item %v of organization %v, want %s", it["id"], it["organization"], org)
			}
		}
	}
}

// TestReviewerRules checks the collection API rules: a reviewer sees and
// decides their own organization's revisions, reads its catalog, and nothing
// else; a guest gets nothing.
func TestReviewerRules(t *testing.T) {
	f := fixture.Get(t)
	const records = "/api/collections/"
	productB := store.FormatID(f.B.Products["SKU-1"])
	get := http.MethodGet
	run(t, []call{
		// revisions
		{name: "A lists only A's revisions", method: get, url: records + "revisions/records", as: reviewerA, status: 200,
			check: func(t testing.TB, app *tests.TestApp, body []byte) {
				listOf(f.A.Org, 7)(t, app, body)
				var ids []string
				for _, it := range decode[list](t, body).Items {
					ids = append(ids, it["id"].(string))
				}
				slices.Sort(ids)
				if want := []string{revFull, revPartial, revAccepted, revRejected, revNew, revTooLong, revEmpty}; !slices.Equal(ids, want) {
					t.Errorf("ids %v, want %v", ids, want)
				}
			}},
		{name: "A views A's revision", method: get, url: revFull, as: reviewerA, status: 200, content: []string{`"id":"101"`}},
		{name: "A views A's revision with its client expanded, no key hash", method: get, url: revFull + "?expand=apiClient,product",
			as: reviewerA, status: 200, content: []string{`"apiClient":{`, `"product":{`}, absent: []string{"keyHash"}},
		{name: "A cannot view B's revision", method: get, url: revB, as: reviewerA, status: 404, content: []string{`"message":"The requested resource wasn't found."`}},
		{name: "A decides A's revision", url: revPartial, as: reviewerA, body: `{"status":"accepted","approvedFields":["name"]}`,
			status: 200, content: []string{`"status":"accepted"`, `"reviewer":"` + reviewerA + `"`, `"approvedFields":["name"]`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				if p := productOf(t, app, f.A, "SKU-M"); p.GetString("name") != "Trail Pro" || p.GetString("slug") != "trail" {
					t.Errorf("product name %q slug %q", p.GetString("name"), p.GetString("slug"))
				}
			}},
		{name: "A cannot decide B's revision", url: revB, as: reviewerA, body: `{"status":"accepted"}`, status: 404,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revB) }},
		{name: "B cannot decide A's revision", url: revFull, as: reviewerB, body: `{"status":"rejected"}`, status: 404,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }},
		{name: "A cannot move A's revision to B", url: revFull, as: reviewerA, body: `{"organization":"` + string(f.B.Org) + `"}`,
			status: 400, content: []string{"not organization."}},
		{name: "A cannot create a revision", method: http.MethodPost, url: records + "revisions/records", as: reviewerA,
			body: `{"organization":"` + string(f.A.Org) + `","status":"pending"}`, status: 403, content: []string{`"message":"Only superusers can perform this action."`}},
		{name: "A cannot delete a revision", method: http.MethodDelete, url: revFull, as: reviewerA, status: 403,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }},
		{name: "superuser lists every organization's revisions", method: get, url: records + "revisions/records", as: "super",
			status: 200, content: []string{`"totalItems":8`}},

		// A's catalog, read-only
		{name: "A lists A's products", method: get, url: records + "products/records?perPage=1", as: reviewerA, status: 200,
			check: listOf(f.A.Org, len(f.A.Products)+1)}, // note: SKU-DUP is two products
		{name: "A cannot view B's product", method: get, url: records + "products/records/" + productB, as: reviewerA, status: 404,
			content: []string{`"message":"The requested resource wasn't found."`}},
		{name: "A cannot change A's product", url: records + "products/records/" + store.FormatID(f.A.Products["SKU-1"]),
			as: reviewerA, body: `{"name":"Hacked"}`, status: 403, content: []string{`"message":"Only superusers can perform this action."`}},
		{name: "A lists A's templates", method: get, url: records + "attribute_templates/records", as: reviewerA, status: 200, check: listOf(f.A.Org, 2)},
		{name: "A lists A's options", method: get, url: records + "attribute_options/records", as: reviewerA, status: 200, check: listOf(f.A.Org, 4)},
		{name: "A lists A's brands", method: get, url: records + "brands/records", as: reviewerA, status: 200, check: listOf(f.A.Org, 1)},
		{name: "A lists A's API clients without key hashes", method: get, url: records + "api_clients/records", as: reviewerA,
			status: 200, absent: []string{"keyHash"}, check: listOf(f.A.Org, 4)},
		{name: "A cannot filter API clients by key hash", method: get, url: records + "api_clients/records?filter=keyHash!=%27%27",
			as: reviewerA, status: 400, content: []string{`"status":400`}, absent: []string{"keyHash"}},
		{name: "B lists B's API clients only", method: get, url: records + "api_clients/records", as: reviewerB, status: 200, check: listOf(f.B.Org, 4)},
		{name: "A views A's organization", method: get, url: records + "organizations/records/" + string(f.A.Org), as: reviewerA, status: 200,
			content: []string{`"id":"` + string(f.A.Org) + `"`, `"name":"Alpha Shoes"`}},
		{name: "A cannot view B's organization", method: get, url: records + "organizations/records/" + string(f.B.Org), as: reviewerA, status: 404,
			content: []string{`"message":"The requested resource wasn't found."`}},

		// reviewers
		{name: "A lists only themself", method: get, url: records + "reviewers/records", as: reviewerA, status: 200,
			content: []string{`"totalItems":1`, reviewerA}, absent: []string{reviewerA2, reviewerB}},
		{name: "A cannot view another reviewer of A", method: get, url: records + "reviewers/records/" + reviewerA2, as: reviewerA, status: 404,
			content: []string{`"message":"The requested resource wasn't found."`}},
		{name: "A cannot change their own organization", url: records + "reviewers/records/" + reviewerA, as: reviewerA,
			body: `{"organization":"` + string(f.B.Org) + `"}`, status: 403, content: []string{`"message":"Only superusers can perform this action."`}},

		// guests
		{name: "guest lists no revisions", method: get, url: records + "revisions/records", status: 200, content: []string{`"totalItems":0`}},
		{name: "guest cannot view a revision", method: get, url: revFull, status: 404, content: []string{`"message":"The requested resource wasn't found."`}},
		{name: "guest cannot decide a revision", url: revFull, body: `{"status":"accepted"}`, status: 404,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }},
		{name: "guest lists no products", method: get, url: records + "products/records", status: 200, content: []string{`"totalItems":0`}},
		{name: "guest lists no API clients", method: get, url: records + "api_clients/records", status: 200, content: []string{`"totalItems":0`}},
		{name: "guest cannot sign up as a reviewer", method: http.MethodPost, url: records + "reviewers/records",
			body: `{"email":"x@example.com","password":"1234567890","passwordConfirm":"1234567890","organization":"` + string(f.A.Org) + `"}`, status: 403,
			content: []string{`"message":"Only superusers can perform this action."`}},
		{name: "guest lists no reviewers", method: get, url: records + "reviewers/records", status: 200, content: []string{`"totalItems":0`}},
	})
}
