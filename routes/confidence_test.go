package routes_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

// TestConfidenceNeverGiven: a revision submitted without confidence shows
// null where one sent with 0 shows 0, in the records API (the dashboard),
// the queue, the plan and the history, as the vendors' revisions route
// shows it.
func TestConfidenceNeverGiven(t *testing.T) {
	f, app, h := served(t)
	reviewer := fixture.ReviewerToken(t, app, string(f.A.Org))
	ids := submitted(t, h, f.A.Keys["submit"], submitURL, `{"sku":"SKU-1","name":"Unsure"}`,
		`{"sku":"SKU-M","name":"Zero","confidence":0}`)
	none, zero := store.FormatID(ids[0]), store.FormatID(ids[1])
	has := func(what string, res interface{ String() string }, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(res.String(), w) {
				t.Errorf("%s: no %s in %s", what, w, res)
			}
		}
	}
	records := "/api/collections/revisions/records/"
	has("the records API, none given", requestAuth(h, http.MethodGet, records+none+"?fields=id,confidence,confidenceBand", reviewer, "").Body,
		`"confidence":null`, `"confidenceBand":""`)
	has("the records API, 0 given", requestAuth(h, http.MethodGet, records+zero+"?fields=id,confidence,confidenceBand", reviewer, "").Body,
		`"confidence":0`, `"confidenceBand":"0-49"`)
	has("the queue", requestAuth(h, http.MethodGet, queueURL, reviewer, "").Body,
		`{"id":"`+none+`","sku":"SKU-1","confidence":null,"confidenceBand":""`, `{"id":"`+zero+`","sku":"SKU-M","confidence":0,"confidenceBand":"0-49"`)
	has("the plan", requestAuth(h, http.MethodGet, planURL+"?revisions="+none+","+zero, reviewer, "").Body,
		`"confidence":null`, `"confidence":0`)
	for _, id := range []string{none, zero} {
		if res := requestAuth(h, http.MethodPatch, records+id, reviewer, `{"status":"accepted"}`); res.Code != 200 {
			t.Fatalf("accept %s: %d %s", id, res.Code, res.Body)
		} else {
			has("the decision's answer", res.Body, `"confidence":`)
		}
	}
	has("the history", requestAuth(h, http.MethodGet, decidedURL, reviewer, "").Body,
		`{"id":"`+none+`","sku":"SKU-1","status":"accepted","confidence":null`, `{"id":"`+zero+`","sku":"SKU-M","status":"accepted","confidence":0`)
	// the stored value stays the number column's 0, and a save keeps it
	rec, err := app.FindRecordById("revisions", none)
	if err != nil || rec.GetInt("confidence") != 0 || rec.GetString("status") != "accepted" {
		t.Errorf("stored: %v %v", rec, err)
	}
}
