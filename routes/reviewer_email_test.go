package routes_test

import (
	"net/http"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
)

// A reviewer cannot learn which addresses other organizations' reviewers
// use: the request of an email change is refused alike for a taken address
// and a free one (the stock route told them apart).
func TestReviewerEmailChangeRefused(t *testing.T) {
	f, app, h := served(t)
	reviewerA := fixture.ReviewerToken(t, app, string(f.A.Org))
	fixture.ReviewerToken(t, app, string(f.B.Org)) // B's reviewer, reviewer-ORG@example.com
	reviewers, err := app.FindCollectionByNameOrId("reviewers")
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, collection := range []string{"reviewers", reviewers.Id} { // the route takes either
		url := "/api/collections/" + collection + "/request-email-change"
		for _, email := range []string{"reviewer-" + string(f.B.Org) + "@example.com", "free@example.com"} {
			res := requestAuth(h, http.MethodPost, url, reviewerA, `{"newEmail":"`+email+`"}`)
			if res.Code != http.StatusForbidden {
				t.Errorf("email change to %s through %s: %d %s", email, collection, res.Code, res.Body)
			}
			bodies = append(bodies, res.Body.String())
		}
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("a taken and a free address answered differently:\n%s\n%s", bodies[0], b)
		}
	}
}
