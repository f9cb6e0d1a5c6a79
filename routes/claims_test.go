package routes_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

const claimsURL = "/api/enrichment/review/claims/"

// namedReviewer creates a reviewer of org with that email and name on app
// and signs them in: their record id and token.
func namedReviewer(t testing.TB, app core.App, org enrichment.Org, email, name string) (string, string) {
	t.Helper()
	c, err := app.FindCollectionByNameOrId("reviewers")
	if err != nil {
		t.Fatal(err)
	}
	r := core.NewRecord(c)
	r.SetEmail(email)
	r.SetPassword("reviewer-password")
	r.Set("organization", string(org))
	r.Set("name", name)
	if err := app.Save(r); err != nil {
		t.Fatal(err)
	}
	token, err := r.NewAuthToken()
	if err != nil {
		t.Fatal(err)
	}
	return r.Id, token
}

// pendingRevisions submits one name proposal per SKU for tenant's client
// and returns the revision ids.
func pendingRevisions(t testing.TB, app core.App, tenant fixture.Tenant, skus ...string) []string {
	t.Helper()
	var proposals []enrichment.Proposal
	for _, sku := range skus {
		name := "Better " + sku
		proposals = append(proposals, enrichment.Proposal{SKU: sku, Fields: enrichment.Fields{Name: &name}})
	}
	res, err := store.New(app).Proposals().Submit(tenant.Org, tenant.Clients["both"], proposals, store.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(res))
	for i, r := range res {
		if r.RevisionID == nil {
			t.Fatalf("%s: not stored: %+v", skus[i], r)
		}
		ids[i] = store.FormatID(*r.RevisionID)
	}
	return ids
}

// twoReviewers is the scene of the claims tests: two reviewers of A, one
// of B, the superuser, and pending revisions of A.
type twoReviewers struct {
	app             *tests.TestApp
	h               http.Handler
	clock           *testClock
	ann, bob, other string // tokens: A's Ann and Bob, B's reviewer
	annID, bobID    string
	super           string
	revs            []string // A's pending revisions
}

func newTwoReviewers(t *testing.T) twoReviewers {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	s := twoReviewers{app: app, h: handler(t, app), clock: stopClock(app)}
	s.annID, s.ann = namedReviewer(t, app, f.A.Org, "ann@example.com", "Ann")
	s.bobID, s.bob = namedReviewer(t, app, f.A.Org, "bob@example.com", "")
	_, s.other = namedReviewer(t, app, f.B.Org, "olga@example.com", "Olga")
	s.super = fixture.SuperuserToken(t, app)
	s.revs = pendingRevisions(t, app, f.A, "SKU-1", "SKU-M", "SKU-NEW")
	return s
}

// The claims route: a reviewer claims and renews a pending revision of
// their organization for 120 s; another reviewer's live claim is 409
// naming the holder; only the holder (or a superuser) releases it.
func TestClaims(t *testing.T) {
	s := newTwoReviewers(t)
	rev := s.revs[0]
	start := s.clock.now()
	at := func(d time.Duration) string {
		return `"expiresAt":"` + start.Add(d).UTC().Format("2006-01-02T15:04:05.000Z") + `"`
	}
	held := `"code":"validation_claim_held"`
	checkReviewerCases(t, s.h, []reviewerCase{
		{name: "no token", method: "POST", url: claimsURL + rev, status: 401, absent: []string{`"revision"`}},
		{name: "Ann claims", method: "POST", url: claimsURL + rev, token: s.ann, status: 200,
			want: []string{`"revision":"` + rev + `"`, `"email":"ann@example.com"`, `"name":"Ann"`, at(120 * time.Second)}},
		{name: "Bob is refused, naming Ann", method: "POST", url: claimsURL + rev, token: s.bob, status: 409,
			want: []string{held, `"email":"ann@example.com"`, "Claimed by Ann <ann@example.com> until"}},
		{name: "B's reviewer: not found", method: "POST", url: claimsURL + rev, token: s.other, status: 404,
			absent: []string{"ann@example.com"}},
		{name: "B's reviewer cannot release it", method: "DELETE", url: claimsURL + rev, token: s.other, status: 404,
			absent: []string{"ann@example.com"}},
		{name: "a superuser claims nothing", method: "POST", url: claimsURL + rev, token: s.super, status: 403,
			want: []string{"Only reviewers claim revisions"}},
		{name: "Bob cannot release Ann's claim", method: "DELETE", url: claimsURL + rev, token: s.bob, status: 409,
			want: []string{held}},
		{name: "an id that is none", method: "POST", url: claimsURL + "x1", token: s.ann, status: 404, want: []string{"No such revision"}},
		{name: "a revision that does not exist", method: "POST", url: claimsURL + "999999", token: s.ann, status: 404,
			want: []string{"No such revision"}},
	})

	s.clock.advance(60 * time.Second)
	checkReviewerCases(t, s.h, []reviewerCase{
		{name: "Ann renews", method: "POST", url: claimsURL + rev, token: s.ann, status: 200, want: []string{at(180 * time.Second)}},
	})
	s.clock.advance(119 * time.Second) // 1 s before the renewed claim ends
	checkReviewerCases(t, s.h, []reviewerCase{
		{name: "still Ann's", method: "POST", url: claimsURL + rev, token: s.bob, status: 409, want: []string{held}},
	})
	s.clock.advance(time.Second)
	checkReviewerCases(t, s.h, []reviewerCase{
		{name: "Ann's claim expired: Bob claims", method: "POST", url: claimsURL + rev, token: s.bob, status: 200,
			want: []string{`"email":"bob@example.com"`}},
		{name: "Bob releases his claim", method: "DELETE", url: claimsURL + rev, token: s.bob, status: 204},
		{name: "releasing again is no error", method: "DELETE", url: claimsURL + rev, token: s.bob, status: 204},
		{name: "Ann claims the released revision", method: "POST", url: claimsURL + rev, token: s.ann, status: 200,
			want: []string{`"email":"ann@example.com"`}},
		{name: "a superuser releases anyone's", method: "DELETE", url: claimsURL + rev, token: s.super, status: 204},
		{name: "so Bob can claim it", method: "POST", url: claimsURL + rev, token: s.bob, status: 200,
			want: []string{`"email":"bob@example.com"`}},
	})

	// a decided revision cannot be claimed
	res := requestAuth(s.h, http.MethodPatch, "/api/collections/revisions/records/"+s.revs[1], s.ann, `{"status":"rejected"}`)
	if res.Code != 200 {
		t.Fatalf("reject: %d %s", res.Code, res.Body)
	}
	checkReviewerCases(t, s.h, []reviewerCase{
		{name: "a rejected revision", method: "POST", url: claimsURL + s.revs[1], token: s.bob, status: 409,
			want: []string{`"status":{"code":"validation_not_pending"`, "only pending revisions can be claimed"}},
	})
}

// A decision on a revision that another reviewer holds is 409 through the
// records API (which the dashboard uses, for superusers too) and the group
// decisions route; the holder decides, and once the claim expired anyone
// does. Deciding ends the claim.
func TestClaimStopsOthersDecisions(t *testing.T) {
	s := newTwoReviewers(t)
	record := func(id string) string { return "/api/collections/revisions/records/" + id }
	for _, id := range s.revs[:2] {
		if res := requestAuth(s.h, http.MethodPost, claimsURL+id, s.ann, ""); res.Code != 200 {
			t.Fatalf("claim %s: %d %s", id, res.Code, res.Body)
		}
	}
	group := `{"decisions":[{"id":"` + s.revs[0] + `","status":"accepted"},{"id":"` + s.revs[2] + `","status":"rejected"}]}`
	checkReviewerCases(t, s.h, []reviewerCase{
		{name: "Bob through the records API", method: "PATCH", url: record(s.revs[0]), token: s.bob, body: `{"status":"accepted"}`,
			status: 409, want: []string{`"email":"ann@example.com"`, "is claimed by Ann"}},
		{name: "a superuser through the records API (the dashboard)", method: "PATCH", url: record(s.revs[0]), token: s.super,
			body: `{"status":"rejected"}`, status: 409, want: []string{`"email":"ann@example.com"`}},
		{name: "Bob through the group decisions: the held one refused, the other decided", method: "POST",
			url: "/api/enrichment/review/decisions", token: s.bob, body: group, status: 200,
			want: []string{`"decided":1,"refused":1`, `"outcome":"refused","error":{"data":{"claim":{`, `"code":"validation_claim_held"`, `"status":409`}},
		{name: "Ann, the holder, decides", method: "PATCH", url: record(s.revs[0]), token: s.ann, body: `{"status":"accepted"}`,
			status: 200, want: []string{`"status":"accepted"`, `"reviewer":"` + s.annID + `"`}},
	})
	n, err := s.app.CountRecords("review_claims")
	if err != nil || n != 1 {
		t.Errorf("claims left after Ann decided one of her two: %d, %v", n, err)
	}
	s.clock.advance(enrichment.ClaimTTL)
	checkReviewerCases(t, s.h, []reviewerCase{
		{name: "Bob, once Ann's claim expired", method: "PATCH", url: record(s.revs[1]), token: s.bob, body: `{"status":"rejected"}`,
			status: 200, want: []string{`"status":"rejected"`, `"reviewer":"` + s.bobID + `"`}},
	})
	if rev, err := s.app.FindRecordById("revisions", s.revs[2]); err != nil || rev.GetString("status") != "rejected" {
		t.Errorf("the unclaimed revision of the group: %v %v", rev.GetString("status"), err)
	}
}

// The queue leaves out the revisions another reviewer holds, unless
// claimed=include, and says who holds an item; one's own claims stay, as
// mine.
func TestQueueClaims(t *testing.T) {
	s := newTwoReviewers(t)
	if res := requestAuth(s.h, http.MethodPost, claimsURL+s.revs[0], s.ann, ""); res.Code != 200 {
		t.Fatalf("claim: %d %s", res.Code, res.Body)
	}
	item := func(id string) string { return `{"id":"` + id + `","sku"` }
	annHolds := `"claim":{"reviewer":"` + s.annID + `","email":"ann@example.com","name":"Ann","expiresAt":`
	checkReviewerCases(t, s.h, []reviewerCase{
		{name: "Bob's queue leaves Ann's out", url: queueURL, token: s.bob, status: 200,
			want: []string{item(s.revs[1]), item(s.revs[2]), `"totalElements":2`}, absent: []string{item(s.revs[0])}},
		{name: "Bob asks for every revision", url: queueURL + "?claimed=include", token: s.bob, status: 200,
			want: []string{item(s.revs[0]), annHolds, `"mine":false`, `"totalElements":3`}},
		{name: "Ann sees her own claim", url: queueURL, token: s.ann, status: 200,
			want: []string{item(s.revs[0]), `"mine":true`, `"totalElements":3`}},
		{name: "an unclaimed item says so", url: queueURL + "?sku=SKU-NEW", token: s.bob, status: 200,
			want: []string{item(s.revs[2]), `"claim":null`}},
		{name: "a superuser's queue leaves it out too", url: queueURL, token: s.super, status: 200,
			want: []string{`"totalElements":2`}, absent: []string{item(s.revs[0])}},
		{name: "a bad claimed", url: queueURL + "?claimed=mine", token: s.bob, status: 400,
			want: []string{`"claimed":{"code":"validation_in_invalid"`}},
	})
	s.clock.advance(enrichment.ClaimTTL)
	checkReviewerCases(t, s.h, []reviewerCase{
		{name: "an expired claim holds nothing back", url: queueURL, token: s.bob, status: 200,
			want: []string{item(s.revs[0]), `"totalElements":3`}, absent: []string{"ann@example.com"}},
	})
}
