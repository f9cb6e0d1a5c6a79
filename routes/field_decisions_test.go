package routes_test

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/webhooks"
	"github.com/pocketbase/dbx"
)

// Decisions per field and attribute through the API: attributes superseded one by one, one
// attribute approved and corrected, a reason for a field, and what the
// vendor sees of it in its revisions and in the webhook payload.
func TestFieldDecisionsSeenByTheVendor(t *testing.T) {
	t.Setenv(webhooks.AllowPrivateEnv, "1")
	f, app, h := served(t)
	both := f.A.Keys["both"]
	subscribe(t, h, both, "http://127.0.0.1:9/decided", "revision.accepted")

	older := submitted(t, h, both, submitURL, `{"sku":"SKU-1","name":"One",`+
		`"attributes":[{"attribute":"Color","detail":"Blue"},{"attribute":"Size","detail":"44"}]}`)[0]
	newer := submitted(t, h, both, submitURL, `{"sku":"SKU-1","attributes":[{"attribute":"Color","detail":"Navy"}]}`)[0]
	item := func(id int64) map[string]jsontext.Value {
		t.Helper()
		body := request(h, http.MethodGet, revisionsURL+"?sku=SKU-1", both, "").Body.Bytes()
		var page struct {
			Items []map[string]jsontext.Value `json:"items"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if string(it["id"]) == fmt.Sprint(id) {
				return it
			}
		}
		t.Fatalf("revision %d not listed: %s", id, body)
		return nil
	}
	it := item(older)
	sameJSON(t, "older fields", it["fields"], `{"name":"pending","attributes":"pending"}`)
	sameJSON(t, "older attributes", it["attributes"], `{"Color":"superseded","Size":"pending"}`)
	sameJSON(t, "no corrections", it["corrections"], `null`)
	sameJSON(t, "no reasons per field", it["fieldReasons"], `null`)
	if s := stateOf(t, app, older); s.status != "pending" || len(s.superseded) != 0 {
		t.Fatalf("one attribute superseded the older revision's whole field: %+v", s)
	}

	token := fixture.SuperuserToken(t, app)
	decide := func(id int64, body string) string {
		res := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/revisions/records/%d", id), token, body)
		return fmt.Sprint(res.Code, " ", res.Body)
	}
	if got := decide(older, `{"status":"accepted","approvedFields":["attributes.Color"]}`); !strings.HasPrefix(got, "400") || !strings.Contains(got, "attributes.Color") {
		t.Errorf("approving a superseded attribute: %s", got)
	}
	if got := decide(older, `{"status":"accepted","approvedFields":["attributes.Size"],"corrections":{"attributes.Size":"45"},`+
		`"fieldReasons":{"name":"inaccurate"}}`); !strings.HasPrefix(got, "200") {
		t.Fatalf("decision: %s", got)
	}
	it = item(older)
	sameJSON(t, "decided fields", it["fields"], `{"name":"not_applied","attributes":"partly_applied"}`)
	sameJSON(t, "decided attributes", it["attributes"], `{"Color":"superseded","Size":"corrected"}`)
	sameJSON(t, "corrections", it["corrections"], `{"attributes.Size":"45"}`)
	sameJSON(t, "reasons per field", it["fieldReasons"], `{"name":"inaccurate"}`)

	// the webhook payload is the revision as the list shows it
	var raw string
	if err := app.DB().Select("payload").From("webhook_deliveries").
		Where(dbx.HashExp{"event": "revision.accepted", "revision": fmt.Sprint(older)}).Row(&raw); err != nil {
		t.Fatal(err)
	}
	var payload struct {
		Data map[string]jsontext.Value `json:"data"`
	}
	if err := json.Unmarshal([]byte(raw), &payload); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"fields", "attributes", "corrections", "fieldReasons"} {
		sameJSON(t, "payload "+key, payload.Data[key], string(it[key]))
	}

	// a newer proposal of the newer revision's only attribute supersedes it whole
	newest := submitted(t, h, both, submitURL, `{"sku":"SKU-1","attributes":[{"attribute":"Color","detail":"Black"}]}`)[0]
	if s := stateOf(t, app, newer); s.status != "superseded" || s.supersededBy != fmt.Sprint(newest) || s.superseded[0] != "attributes" {
		t.Errorf("newer after newest: %+v", s)
	}
	sameJSON(t, "superseded attributes", item(newer)["attributes"], `{"Color":"superseded"}`)
}
