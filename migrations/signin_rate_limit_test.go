package migrations_test

import (
	"encoding/json/v2"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// TestSignInThrottled: password sign-in is rate-limited per address, for
// reviewers and superusers alike: thirty wrong passwords in a row are not
// all answered, and the right one after them is refused too until the
// window ends; another address is not affected. A signed-in reviewer's
// list and count requests, as the reviewers' page makes them, never are.
func TestSignInThrottled(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	h := fixture.Serve(t, app)
	reviewer := core.NewRecord(must(t, app, "reviewers"))
	reviewer.SetEmail("ann@alpha.example")
	reviewer.SetPassword("reviewer-password")
	reviewer.Set("organization", string(f.A.Org))
	if err := app.Save(reviewer); err != nil {
		t.Fatal(err)
	}

	signIn := func(collection, email, password, addr string) int {
		body, _ := json.Marshal(map[string]string{"identity": email, "password": password})
		req := httptest.NewRequest(http.MethodPost, "/api/collections/"+collection+"/auth-with-password", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.RemoteAddr = addr
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	for _, who := range []struct{ collection, email, password string }{
		{"reviewers", "ann@alpha.example", "reviewer-password"},
		{core.CollectionNameSuperusers, fixture.SuperuserEmail, "superuser-password"},
	} {
		const attacker, colleague = "198.51.100.7:40000", "198.51.100.8:40000"
		answers := map[int]int{}
		for i := range 30 {
			answers[signIn(who.collection, who.email, fmt.Sprintf("guess-%d", i), attacker)]++
		}
		if answers[http.StatusTooManyRequests] == 0 || answers[http.StatusBadRequest] == 0 {
			t.Errorf("%s: 30 wrong passwords were answered %v, want some 400 and then 429", who.collection, answers)
		}
		if code := signIn(who.collection, who.email, who.password, attacker); code != http.StatusTooManyRequests {
			t.Errorf("%s: the right password after 30 wrong ones: %d, want 429", who.collection, code)
		}
		if code := signIn(who.collection, who.email, who.password, colleague); code != http.StatusOK {
			t.Errorf("%s: the right password from another address: %d, want 200", who.collection, code)
		}
	}

	token, err := reviewer.NewAuthToken()
	if err != nil {
		t.Fatal(err)
	}
	// note: something to count; PocketBase slows down (never refuses)
	// filtered lists that come back empty, whatever the settings
	name := "Counted"
	confidence := 90
	if _, err := store.New(app).Proposals().Submit(f.A.Org, f.A.Clients["submit"], []enrichment.Proposal{
		{SKU: "SKU-1", Confidence: &confidence, Fields: enrichment.Fields{Name: &name}},
	}, store.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	pending := url.QueryEscape("status = 'pending' && confidenceBand = '80-100'")
	for i := range 200 {
		u := "/api/collections/revisions/records?page=1&perPage=50&sort=-confidence"
		if i%2 == 1 {
			u = "/api/collections/revisions/records?page=1&perPage=1&fields=id&filter=" + pending
		}
		req := httptest.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("Authorization", token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("list or count request %d of a signed-in reviewer: %d %s", i, rec.Code, rec.Body)
		}
	}
}

func must(t *testing.T, app core.App, collection string) *core.Collection {
	t.Helper()
	c, err := app.FindCollectionByNameOrId(collection)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
