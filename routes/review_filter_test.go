package routes_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// submittedBy stores items of a model version through the submissions
// route with key and returns their revision ids.
func submittedBy(t *testing.T, h http.Handler, key, model string, items ...string) []string {
	t.Helper()
	name, version, _ := strings.Cut(model, "/")
	res := request(h, http.MethodPost, submitURL, key,
		`{"model":{"name":"`+name+`","version":"`+version+`"},"items":[`+strings.Join(items, ",")+`]}`)
	if res.Code != 200 {
		t.Fatalf("submit: %d %s", res.Code, res.Body)
	}
	var ids []string
	for _, r := range decode[[]result](t, res.Body.Bytes()) {
		if r.RevisionID == nil {
			t.Fatalf("not stored: %s", res.Body)
		}
		ids = append(ids, store.FormatID(*r.RevisionID))
	}
	return ids
}

// The queue's model and modelVersion filters, and a group decision by the
// queue's filters: one request rejects every pending revision they select,
// of the organizations the identity reviews, and answers how many it
// decided; bad filters are 400 naming them.
func TestReviewDecisionsByFilter(t *testing.T) {
	f, app, h := served(t)
	reviewerA := fixture.ReviewerToken(t, app, string(f.A.Org))
	super := fixture.SuperuserToken(t, app)
	good := submittedBy(t, h, f.A.Keys["both"], "sim/1", `{"sku":"BULK-0001","name":"One"}`, `{"sku":"BULK-0002","name":"Two"}`)
	bad := submittedBy(t, h, f.A.Keys["both"], "sim/2", `{"sku":"BULK-0003","name":"Three"}`, `{"sku":"BULK-0004","name":"Four"}`,
		`{"sku":"BULK-0005","name":"Five"}`)
	other := submittedBy(t, h, f.A.Keys["submit"], "other/2", `{"sku":"BULK-0006","name":"Six"}`)
	ofB := submittedBy(t, h, f.B.Keys["both"], "sim/2", `{"sku":"SKU-1","name":"B's"}`)
	client := store.FormatID(f.A.Clients["both"])
	queue := "/api/enrichment/review/queue?pageSize=10&"
	reject := func(filter string) string {
		return `{"status":"rejected","reason":"inaccurate","comment":"A bad version.","filter":` + filter + `}`
	}

	checkReviewerCases(t, h, []reviewerCase{
		{name: "queue of model sim 2", url: queue + "model=sim&modelVersion=2", token: reviewerA, status: 200,
			want: []string{`"totalElements":3`, `"id":"` + bad[0] + `"`}, absent: []string{`"id":"` + good[0] + `"`, `"id":"` + ofB[0] + `"`}},
		{name: "queue of version 2 of any model", url: queue + "modelVersion=2", token: reviewerA, status: 200, want: []string{`"totalElements":4`}},
		{name: "queue of model sim", url: queue + "model=sim", token: reviewerA, status: 200, want: []string{`"totalElements":5`}},
		{name: "queue of an unknown model", url: queue + "model=nobody", token: reviewerA, status: 200, want: []string{`"totalElements":0`}},
		{name: "a model name too long", url: queue + "model=" + strings.Repeat("m", 101), token: reviewerA, status: 400,
			want: []string{`"model":{"code":"validation_invalid_model"`}},
		{name: "an empty model", url: queue + "model=", token: reviewerA, status: 400,
			want: []string{`"model":{"code":"validation_invalid_model"`}},
		{name: "an empty model version", url: queue + "modelVersion=", token: reviewerA, status: 400,
			want: []string{`"modelVersion":{"code":"validation_invalid_model"`}},
		{name: "a filter of an empty model rejects nothing", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: reject(`{"model":""}`), status: 400, want: []string{`"filter.model":{"code":"validation_required"`}},
		{name: "a filter of an empty client rejects nothing", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: reject(`{"model":"sim","client":""}`), status: 400, want: []string{`"filter.client":{"code":"validation_required"`}},
		{name: "a filter of a null brand rejects nothing", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: reject(`{"model":"sim","brand":null}`), status: 400, want: []string{`"filter.brand":{"code":"validation_required"`}},
		{name: "no token", method: http.MethodPost, url: decisionsURL, body: reject(`{"model":"sim"}`), status: 401},
		{name: "an API key instead", method: http.MethodPost, url: decisionsURL, key: f.A.Keys["both"], body: reject(`{"model":"sim"}`), status: 401},
		{name: "accept by filter", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: `{"status":"accepted","filter":{"model":"sim"}}`, status: 400, want: []string{`"status":{"code":"validation_in_invalid"`}},
		{name: "filter and decisions", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: `{"status":"rejected","filter":{"model":"sim"},"decisions":[{"id":"` + bad[0] + `","status":"rejected"}]}`, status: 400,
			want: []string{`"decisions":{"code":"validation_not_both"`}},
		{name: "stopOnFailure with a filter", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: `{"status":"rejected","stopOnFailure":true,"filter":{"model":"sim"}}`, status: 400,
			want: []string{`"stopOnFailure":{"code":"validation_list_only"`}},
		{name: "stopOnFailure false with a filter", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: `{"status":"rejected","stopOnFailure":false,"filter":{"model":"sim"}}`, status: 400,
			want: []string{`"stopOnFailure":{"code":"validation_list_only"`}},
		{name: "an empty list of decisions with a filter", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: `{"status":"rejected","filter":{"model":"sim"},"decisions":[]}`, status: 400,
			want: []string{`"decisions":{"code":"validation_not_both"`}},
		{name: "a list with the filter form's status", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: `{"status":"accepted","decisions":[{"id":"` + bad[0] + `","status":"rejected"}]}`, status: 400,
			want: []string{`"status":{"code":"validation_filter_only"`}},
		{name: "a list with the filter form's reason", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: `{"reason":"inaccurate","decisions":[{"id":"` + bad[0] + `","status":"rejected"}]}`, status: 400,
			want: []string{`"reason":{"code":"validation_filter_only"`}},
		{name: "a paging parameter", method: http.MethodPost, url: decisionsURL, token: reviewerA, body: reject(`{"page":2}`), status: 400,
			want: []string{`"filter.page":{"code":"validation_unknown_filter"`}},
		{name: "a bad client", method: http.MethodPost, url: decisionsURL, token: reviewerA, body: reject(`{"client":"x"}`), status: 400,
			want: []string{`"filter.client":{"code":"validation_invalid_id"`}},
		{name: "an object as a value", method: http.MethodPost, url: decisionsURL, token: reviewerA, body: reject(`{"model":{"name":"sim"}}`), status: 400,
			want: []string{`"filter.model":{"code":"validation_invalid_type"`}},
		{name: "a bad reason", method: http.MethodPost, url: decisionsURL, token: reviewerA,
			body: `{"status":"rejected","reason":"spite","filter":{"model":"sim","modelVersion":"2"}}`, status: 200,
			want: []string{`"decided":0,"refused":3,"skipped":0`}},
	})

	// the bad version of one client, in one request
	res := requestAuth(h, http.MethodPost, decisionsURL, reviewerA, reject(`{"client":"`+client+`","model":"sim","modelVersion":"2"}`))
	if res.Code != 200 || !strings.Contains(res.Body.String(), `"decided":3,"refused":0,"skipped":0`) {
		t.Fatalf("reject sim 2 by filter: %d %.500s", res.Code, res.Body)
	}
	for _, c := range []struct {
		ids  []string
		want string
	}{{bad, "rejected"}, {good, "pending"}, {other, "pending"}, {ofB, "pending"}} {
		for _, id := range c.ids {
			r, err := app.FindRecordById("revisions", id)
			if err != nil {
				t.Fatal(err)
			}
			if r.GetString("status") != c.want {
				t.Errorf("revision %s: %s, want %s", id, r.GetString("status"), c.want)
			}
			if c.want == "rejected" && (r.GetString("reason") != "inaccurate" || r.GetString("comment") != "A bad version." ||
				r.GetString("decidedBy") != "reviewer" || r.GetString("reviewer") != fixture.ReviewerID(t, app, string(f.A.Org))) {
				t.Errorf("revision %s decided as %v", id, r.FieldsData())
			}
		}
	}
	// again: nothing left to select
	if res := requestAuth(h, http.MethodPost, decisionsURL, reviewerA, reject(`{"model":"sim","modelVersion":"2"}`)); !strings.Contains(res.Body.String(), `"decided":0,"refused":0,"skipped":0,"results":[]`) {
		t.Errorf("again: %d %.300s", res.Code, res.Body)
	}
	// a superuser's filter spans the organizations: B's sim 2 is the last one
	if res := requestAuth(h, http.MethodPost, decisionsURL, super, reject(`{"modelVersion":"2","model":"sim"}`)); !strings.Contains(res.Body.String(), `"decided":1,`) ||
		!strings.Contains(res.Body.String(), `"id":"`+ofB[0]+`"`) {
		t.Errorf("a superuser's filter: %d %.300s", res.Code, res.Body)
	}
}

// A filter that selects more than enrichment.MaxFilterRevisions pending
// revisions is 400 naming the cap and decides nothing; one at the cap is
// decided whole, in the one request.
func TestReviewDecisionsByFilterCap(t *testing.T) {
	f, app, h := served(t)
	reviewerA := fixture.ReviewerToken(t, app, string(f.A.Org))
	first := submittedBy(t, h, f.A.Keys["both"], "cap/1", `{"sku":"BULK-0001","name":"One"}`)[0]
	// the other pending revisions of the version are copies of the first
	// under new ids: the route reads them as it reads any
	cloneRevision(t, app, first, enrichment.MaxFilterRevisions)
	reject := `{"status":"rejected","reason":"inaccurate","filter":{"model":"cap","modelVersion":"1"}}`

	res := requestAuth(h, http.MethodPost, decisionsURL, reviewerA, reject)
	if res.Code != 400 || !strings.Contains(res.Body.String(), `"filter":{"code":"validation_too_many","message":"Selects more than 10000 revisions; narrow it."}`) {
		t.Fatalf("over the cap: %d %.400s", res.Code, res.Body)
	}
	if n := pendingOf(t, app, "cap"); n != enrichment.MaxFilterRevisions+1 {
		t.Fatalf("over the cap decided some: %d pending", n)
	}
	// one fewer: the cap itself is allowed
	if _, err := app.DB().NewQuery("DELETE FROM revisions WHERE id = {:id}").Bind(dbx.Params{"id": first}).Execute(); err != nil {
		t.Fatal(err)
	}
	res = requestAuth(h, http.MethodPost, decisionsURL, reviewerA, reject)
	if res.Code != 200 || !strings.Contains(res.Body.String(), `"decided":10000,"refused":0,"skipped":0`) {
		t.Fatalf("at the cap: %d %.300s", res.Code, res.Body)
	}
	if n := pendingOf(t, app, "cap"); n != 0 {
		t.Errorf("at the cap: %d left pending", n)
	}
}

// cloneRevision stores n copies of the revision id under new ids.
func cloneRevision(t *testing.T, app core.App, id string, n int) {
	t.Helper()
	var cols []struct {
		Name string `db:"name"`
	}
	if err := app.DB().NewQuery("SELECT name FROM pragma_table_info('revisions')").All(&cols); err != nil {
		t.Fatal(err)
	}
	names, values := make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		names[i], values[i] = "["+c.Name+"]", "r.["+c.Name+"]"
		if c.Name == "id" {
			values[i] = "CAST(1000000 + k.n AS TEXT)"
		}
	}
	sql := "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {:n}) " +
		"INSERT INTO revisions (" + strings.Join(names, ",") + ") SELECT " + strings.Join(values, ",") +
		" FROM k, revisions r WHERE r.id = {:id}"
	if _, err := app.DB().NewQuery(sql).Bind(dbx.Params{"n": n, "id": id}).Execute(); err != nil {
		t.Fatalf("clone revision %s: %v", id, err)
	}
}

// pendingOf counts the pending revisions of a model name.
func pendingOf(t *testing.T, app core.App, model string) int {
	t.Helper()
	var n int
	err := app.DB().NewQuery("SELECT COUNT(*) FROM revisions WHERE status = 'pending' AND json_extract(model, '$.name') = {:m}").
		Bind(dbx.Params{"m": model}).Row(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
