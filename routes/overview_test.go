package routes_test

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

const overviewURL = "/api/enrichment/review/overview"

// The reviewers' overview shows each organization only its own clients, with
// the figures of GET /acceptance-rate.
func TestReviewOverview(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	h := handler(t, app)
	st := store.New(app)
	name := "Better"
	conf := 90
	for _, tenant := range []fixture.Tenant{f.A, f.B} {
		if _, err := st.Submit(tenant.Org, tenant.Clients["both"], []enrichment.Proposal{
			{SKU: "SKU-1", Confidence: &conf, Fields: enrichment.Fields{Name: &name}},
		}, store.SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	super := fixture.SuperuserToken(t, app)
	reviewerA, reviewerB := reviewerToken(t, app, string(f.A.Org)), reviewerToken(t, app, string(f.B.Org))
	clientOf := func(tenant fixture.Tenant) string {
		return fmt.Sprintf(`{"id":%d,"name":"both","active":true,"organization":%s`, tenant.Clients["both"], tenant.Org)
	}
	pendingOne := `"metrics":{"totalSubmitted":1,"reviewed":0,"accepted":0,"rejected":0,"pending":1`

	for _, c := range []struct {
		name, url, token, key string
		status                int
		want, absent          []string
	}{
		{name: "no token", url: overviewURL, status: 401},
		{name: "an API key instead", url: overviewURL, key: f.A.Keys["both"], status: 401},
		{name: "reviewer of A", url: overviewURL, token: reviewerA, status: 200,
			want: []string{clientOf(f.A), pendingOne, `"all":{"totalSubmitted":1,`}, absent: []string{clientOf(f.B)}},
		{name: "reviewer of B", url: overviewURL, token: reviewerB, status: 200,
			want: []string{clientOf(f.B)}, absent: []string{clientOf(f.A)}},
		{name: "reviewer of A asking for B", url: overviewURL + "?organization=" + string(f.B.Org), token: reviewerA, status: 404,
			absent: []string{clientOf(f.B)}},
		{name: "reviewer of A naming A", url: overviewURL + "?organization=" + string(f.A.Org), token: reviewerA, status: 200,
			want: []string{clientOf(f.A)}},
		{name: "superuser: every organization", url: overviewURL, token: super, status: 200,
			want: []string{clientOf(f.A), clientOf(f.B), `"all":{"totalSubmitted":2,`}},
		{name: "superuser: organization B", url: overviewURL + "?organization=" + string(f.B.Org), token: super, status: 200,
			want: []string{clientOf(f.B)}, absent: []string{clientOf(f.A)}},
		{name: "POST", url: overviewURL, token: super, status: 405},
	} {
		method := http.MethodGet
		if c.name == "POST" {
			method = http.MethodPost
		}
		res := request(h, method, c.url, c.key, "")
		if c.token != "" {
			res = requestAuth(h, method, c.url, c.token, "")
		}
		if res.Code != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, res.Code, c.status, res.Body)
			continue
		}
		for _, w := range c.want {
			if !contains(res.Body.String(), w) {
				t.Errorf("%s: no %s in %s", c.name, w, res.Body)
			}
		}
		for _, a := range c.absent {
			if contains(res.Body.String(), a) {
				t.Errorf("%s: %s in %s", c.name, a, res.Body)
			}
		}
	}

	// the same figures as the client's own metrics, once something is decided
	if r := requestAuth(h, http.MethodPatch, "/api/collections/revisions/records/1", super, `{"status":"rejected"}`); r.Code != 200 {
		t.Fatalf("decide: %d %s", r.Code, r.Body)
	}
	own := decode[enrichment.AcceptanceMetrics](t, request(h, http.MethodGet, "/api/enrichment/acceptance-rate", f.A.Keys["both"], "").Body.Bytes())
	o := decode[enrichment.Overview](t, requestAuth(h, http.MethodGet, overviewURL, reviewerA, "").Body.Bytes())
	if len(o.Clients) != 1 || !reflect.DeepEqual(o.Clients[0].Metrics, own) || own.Rejected != 1 {
		t.Errorf("overview %+v, the client's own metrics %+v", o.Clients, own)
	}
}
