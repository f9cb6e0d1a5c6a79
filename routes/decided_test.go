package routes_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

const decidedURL = "/api/enrichment/review/decided"

// The history lists the organization's decided revisions, newest decision
// first, paged, filtered by reviewer (an id or me), decidedBy, client and
// window; another organization's decisions and reviewers are not found.
func TestDecidedHistory(t *testing.T) {
	f, app, h := served(t)
	annID, ann := namedReviewer(t, app, f.A.Org, "ann@example.com", "Ann")
	bobID, bob := namedReviewer(t, app, f.A.Org, "bob@example.com", "")
	otherID, other := namedReviewer(t, app, f.B.Org, "olga@example.com", "Olga")
	super := fixture.SuperuserToken(t, app)
	revs := pendingRevisions(t, app, f.A, "SKU-1", "SKU-M", "SKU-NEW")
	submit := submitted(t, h, f.A.Keys["submit"], submitURL, `{"sku":"SKU-M-RED","name":"Red"}`)[0]
	bRev := pendingRevisions(t, app, f.B, "SKU-1")[0]
	start := clock.Wall().Truncate(time.Millisecond)

	decide := func(token, id, status string) {
		t.Helper()
		res := requestAuth(h, http.MethodPatch, "/api/collections/revisions/records/"+id, token, `{"status":"`+status+`"}`)
		if res.Code != 200 {
			t.Fatalf("decide %s: %d %s", id, res.Code, res.Body)
		}
	}
	decide(ann, revs[0], "accepted")
	decide(bob, revs[1], "rejected")
	decide(super, store.FormatID(submit), "rejected")
	decide(other, bRev, "accepted")
	// revs[2] stays pending; a trust policy accepts one more
	policies, err := app.FindCollectionByNameOrId("trust_policies")
	if err != nil {
		t.Fatal(err)
	}
	policy := core.NewRecord(policies)
	policy.Load(map[string]any{"organization": string(f.A.Org), "apiClient": store.FormatID(f.A.Clients["both"]), "fields": []string{"name"}, "auditRate": 0.05})
	if err := app.Save(policy); err != nil {
		t.Fatal(err)
	}
	auto := pendingRevisions(t, app, f.A, "SKU-M-BLUE")[0]
	out, err := store.New(app).Review().DecideSet(f.A.Org, []store.SetDecision{{Revision: auto,
		Decision: enrichment.Decision{Status: enrichment.StatusAccepted}}}, store.SetDecider{Policy: policy.Id}, clock.Now(app))
	if err != nil || !out[0].Decided() {
		t.Fatal(err, out)
	}
	// note: the decisions one second apart, in that order, as the order is the subject
	for i, id := range []string{revs[0], revs[1], store.FormatID(submit), bRev, auto} {
		at := store.FormatTime(start.Add(time.Duration(i) * time.Second))
		if _, err := app.DB().NewQuery("UPDATE revisions SET reviewedAt = {:at} WHERE id = {:id}").
			Bind(map[string]any{"at": at, "id": id}).Execute(); err != nil {
			t.Fatal(err)
		}
	}

	item := func(id string) string { return `{"id":"` + id + `","sku"` }
	subm := store.FormatID(submit)
	checkReviewerCases(t, h, []reviewerCase{
		{name: "no token", url: decidedURL, status: 401, absent: []string{item(revs[0])}},
		{name: "an API key instead", url: decidedURL, key: f.A.Keys["both"], status: 401, absent: []string{item(revs[0])}},
		{name: "Ann: A's decisions", url: decidedURL, token: ann, status: 200,
			want:   []string{item(revs[0]), item(revs[1]), item(subm), item(auto), `"totalElements":4`, `"reviewer":{"kind":"reviewer","id":"` + annID + `","email":"ann@example.com"}`, `"decidedBy":"reviewer"`},
			absent: []string{item(bRev), item(revs[2]), "olga@example.com"}},
		{name: "reviewer=me", url: decidedURL + "?reviewer=me", token: ann, status: 200,
			want: []string{item(revs[0]), `"applied":["name"]`, `"totalElements":1`}, absent: []string{item(revs[1])}},
		{name: "reviewer=Bob's id", url: decidedURL + "?reviewer=" + bobID, token: ann, status: 200,
			want: []string{item(revs[1]), `"status":"rejected"`, `"applied":[]`, `"totalElements":1`}, absent: []string{item(revs[0])}},
		{name: "reviewer=the superuser's id, as the items show it", url: decidedURL + "?reviewer=" + fixture.SuperuserID(t, app), token: ann, status: 200,
			want: []string{item(subm), `"totalElements":1`}, absent: []string{item(revs[0])}},
		{name: "a reviewer of B is not found", url: decidedURL + "?reviewer=" + otherID, token: ann, status: 404,
			want: []string{"No such reviewer"}, absent: []string{item(bRev)}},
		{name: "client", url: decidedURL + "?client=" + store.FormatID(f.A.Clients["submit"]), token: ann, status: 200,
			want: []string{item(subm), `"reviewer":{"kind":"superuser","id":"` + fixture.SuperuserID(t, app) + `","email":"` + fixture.SuperuserEmail + `"}`, `"totalElements":1`}},
		{name: "decidedBy=reviewer", url: decidedURL + "?decidedBy=reviewer", token: ann, status: 200,
			want: []string{`"totalElements":3`}, absent: []string{item(auto)}},
		{name: "decidedBy=policy", url: decidedURL + "?decidedBy=policy", token: ann, status: 200,
			want: []string{item(auto), `"decidedBy":"policy","reviewer":{"kind":"policy","id":"","email":""},"policy":"` + policy.Id + `"`, `"totalElements":1`}},
		{name: "since after every decision", url: decidedURL + "?since=" + start.Add(time.Hour).UTC().Format(time.RFC3339), token: ann, status: 200,
			want: []string{`"totalElements":0`}},
		{name: "since Ann's decision, strictly", url: decidedURL + "?since=" + strconvMs(start), token: ann, status: 200,
			want: []string{item(revs[1]), item(subm), item(auto), `"totalElements":3`}, absent: []string{item(revs[0])}},
		{name: "until the superuser's decision, strictly", url: decidedURL + "?until=" + strconvMs(start.Add(2*time.Second)), token: ann, status: 200,
			want: []string{item(revs[0]), item(revs[1]), `"totalElements":2`}, absent: []string{item(subm)}},
		{name: "until before every decision", url: decidedURL + "?until=" + start.Add(-time.Second).UTC().Format("2006-01-02T15:04:05"), token: ann, status: 200,
			want: []string{`"totalElements":0`}},
		{name: "a window around them", url: decidedURL + "?since=" + strconvMs(start.Add(-time.Minute)) + "&until=" + strconvMs(start.Add(time.Minute)), token: ann, status: 200,
			want: []string{`"totalElements":4`}},
		{name: "the third page of one", url: decidedURL + "?pageSize=1&page=2", token: ann, status: 200,
			want: []string{item(revs[1]), `"page":2,"pageSize":1,"totalElements":4,"totalPages":4`}, absent: []string{item(revs[0]), item(subm)}},
		{name: "B's reviewer sees B's", url: decidedURL, token: other, status: 200, want: []string{item(bRev), `"totalElements":1`}},
		{name: "the superuser sees every organization's", url: decidedURL, token: super, status: 200, want: []string{`"totalElements":5`}},
		{name: "a bad decidedBy", url: decidedURL + "?decidedBy=robot", token: ann, status: 400, want: []string{`"decidedBy":{"code":"validation_in_invalid"`}},
		{name: "a bad since", url: decidedURL + "?since=yesterday", token: ann, status: 400, want: []string{`"since":{"code":"validation_invalid_time"`}},
		{name: "a bad client", url: decidedURL + "?client=x", token: ann, status: 400, want: []string{`"client":{"code":"validation_invalid_id"`}},
		{name: "a bad page", url: decidedURL + "?page=-1", token: ann, status: 400, want: []string{`"page":{`}},
	})

	// newest decision first
	res := requestAuth(h, http.MethodGet, decidedURL, ann, "")
	body := res.Body.String()
	at := func(id string) int { return strings.Index(body, item(id)) }
	if !(at(auto) < at(subm) && at(subm) < at(revs[1]) && at(revs[1]) < at(revs[0])) {
		t.Errorf("not newest decision first: %s", body)
	}
}

func strconvMs(t time.Time) string {
	return strconv.FormatInt(t.UnixMilli(), 10)
}
