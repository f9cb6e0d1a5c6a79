package routes_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/catalog-enrichment/enrichment/webhooks"
	"github.com/pocketbase/dbx"
)

const webhooksURL = "/api/enrichment/webhooks"

// subscribe creates a subscription and returns it with its secret.
func subscribe(t testing.TB, h http.Handler, key, url string, events ...string) enrichment.CreatedWebhook {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"url": url, "events": events})
	res := request(h, http.MethodPost, webhooksURL, key, string(body))
	if res.Code != http.StatusCreated {
		t.Fatalf("subscribe %s: %d %s", url, res.Code, res.Body)
	}
	return decode[enrichment.CreatedWebhook](t, res.Body.Bytes())
}

// deliveries lists a subscription's deliveries, newest first.
func deliveries(t testing.TB, h http.Handler, key string, id int64) []enrichment.Delivery {
	t.Helper()
	res := request(h, http.MethodGet, fmt.Sprintf("%s/%d/deliveries?pageSize=500", webhooksURL, id), key, "")
	if res.Code != 200 {
		t.Fatalf("deliveries of %d: %d %s", id, res.Code, res.Body)
	}
	return decode[enrichment.Page[enrichment.Delivery]](t, res.Body.Bytes()).Items
}

func TestWebhookSubscriptions(t *testing.T) {
	t.Setenv(webhooks.AllowPrivateEnv, "1")
	f, app, h := served(t)
	both, read, other := f.A.Keys["both"], f.A.Keys["read"], f.A.Keys["submit"]

	w := subscribe(t, h, both, "http://127.0.0.1:9/hook", "revision.rejected", "revision.accepted", "revision.accepted")
	if !strings.HasPrefix(w.Secret, "whsec_") || len(w.Secret) != len("whsec_")+44 || !w.Active ||
		strings.Join(w.Events, ",") != "revision.accepted,revision.rejected" || w.CreatedAt == "" {
		t.Errorf("created %+v", w)
	}
	var sealed string
	if err := app.DB().Select("secret").From("webhooks").Where(dbx.HashExp{"id": fmt.Sprint(w.ID)}).Row(&sealed); err != nil {
		t.Fatal(err)
	}
	if sealed == w.Secret || strings.Contains(sealed, strings.TrimPrefix(w.Secret, "whsec_")) || !strings.HasPrefix(sealed, "v1:") {
		t.Errorf("the secret is stored as %q", sealed)
	}

	list := request(h, http.MethodGet, webhooksURL, both, "")
	if list.Code != 200 || strings.Contains(list.Body.String(), "secret") || strings.Contains(list.Body.String(), w.Secret) ||
		!strings.Contains(list.Body.String(), fmt.Sprintf(`"id":%d`, w.ID)) {
		t.Errorf("list: %d %s", list.Code, list.Body)
	}

	for _, c := range []struct {
		name, method, url, key, body string
		status                       int
		has                          string
	}{
		{"no key", http.MethodGet, webhooksURL, "", "", 401, ""},
		{"a read-only key", http.MethodGet, webhooksURL, read, "", 403, "Missing required scope: catalog:submit"},
		{"another client's list", http.MethodGet, webhooksURL, other, "", 200, "[]"},
		{"another client's deliveries", http.MethodGet, fmt.Sprintf("%s/%d/deliveries", webhooksURL, w.ID), other, "", 404, ""},
		{"another client's test", http.MethodPost, fmt.Sprintf("%s/%d/test", webhooksURL, w.ID), other, "", 404, ""},
		{"another client's delete", http.MethodDelete, fmt.Sprintf("%s/%d", webhooksURL, w.ID), other, "", 404, ""},
		{"another organization's delete", http.MethodDelete, fmt.Sprintf("%s/%d", webhooksURL, w.ID), f.B.Keys["both"], "", 404, ""},
		{"not an id", http.MethodDelete, webhooksURL + "/abc", both, "", 404, ""},
		{"PUT", http.MethodPut, fmt.Sprintf("%s/%d", webhooksURL, w.ID), both, "", 405, ""},
		{"no events", http.MethodPost, webhooksURL, both, `{"url":"http://127.0.0.1:9/","events":[]}`, 400, `"events":{`},
		{"an unknown event", http.MethodPost, webhooksURL, both, `{"url":"http://127.0.0.1:9/","events":["ping","revision.deleted"]}`, 400, `"events.1":{`},
		{"no url", http.MethodPost, webhooksURL, both, `{"events":["ping"]}`, 400, `"url":{`},
		{"a url that is not one", http.MethodPost, webhooksURL, both, `{"url":"hook","events":["ping"]}`, 400, `"url":{`},
		{"events not a list", http.MethodPost, webhooksURL, both, `{"url":"http://127.0.0.1:9/","events":"ping"}`, 400, ""},
	} {
		res := request(h, c.method, c.url, c.key, c.body)
		if res.Code != c.status || !strings.Contains(res.Body.String(), c.has) {
			t.Errorf("%s: %d %s, want %d with %s", c.name, res.Code, res.Body, c.status, c.has)
		}
	}

	// ping: queued whatever the events, the newest delivery first
	ping := request(h, http.MethodPost, fmt.Sprintf("%s/%d/test", webhooksURL, w.ID), both, "")
	if ping.Code != http.StatusAccepted {
		t.Fatalf("test: %d %s", ping.Code, ping.Body)
	}
	p := decode[enrichment.Delivery](t, ping.Body.Bytes())
	if p.Event != "ping" || p.Status != "pending" || p.Attempts != 0 || p.RevisionID != nil || p.NextAttemptAt == nil ||
		p.LastStatusCode != nil || p.LastError != nil || p.DeliveredAt != nil {
		t.Errorf("ping %+v", p)
	}
	if ds := deliveries(t, h, both, w.ID); len(ds) != 1 || ds[0].ID != p.ID {
		t.Errorf("deliveries %+v", ds)
	}
	var payload string
	if err := app.DB().Select("payload").From("webhook_deliveries").Where(dbx.HashExp{"id": fmt.Sprint(p.ID)}).Row(&payload); err != nil ||
		!strings.HasPrefix(payload, `{"type":"ping","timestamp":"`) || !strings.HasSuffix(payload, `"data":{}}`) {
		t.Errorf("ping payload %s, %v", payload, err)
	}

	// at most ten
	for i := 2; i <= enrichment.MaxWebhooksPerClient; i++ {
		subscribe(t, h, both, fmt.Sprintf("http://127.0.0.1:9/hook/%d", i), "ping")
	}
	if res := request(h, http.MethodPost, webhooksURL, both, `{"url":"http://127.0.0.1:9/11","events":["ping"]}`); res.Code != 400 ||
		!strings.Contains(res.Body.String(), "at most 10") {
		t.Errorf("the eleventh: %d %s", res.Code, res.Body)
	}
	if res := request(h, http.MethodDelete, fmt.Sprintf("%s/%d", webhooksURL, w.ID), both, ""); res.Code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", res.Code, res.Body)
	}
	var left int
	if err := app.DB().Select("COUNT(*)").From("webhook_deliveries").Where(dbx.HashExp{"webhook": fmt.Sprint(w.ID)}).Row(&left); err != nil || left != 0 {
		t.Errorf("deliveries of the deleted subscription: %d, %v", left, err)
	}
	if res := request(h, http.MethodGet, fmt.Sprintf("%s/%d/deliveries", webhooksURL, w.ID), both, ""); res.Code != 404 {
		t.Errorf("deliveries of the deleted subscription: %d", res.Code)
	}
	subscribe(t, h, both, "http://127.0.0.1:9/11", "ping")
}

// The URL rules against server-side request forgery, as registered
// (without ENRICHMENT_WEBHOOK_ALLOW_PRIVATE).
func TestWebhookURLGuard(t *testing.T) {
	t.Setenv(webhooks.AllowPrivateEnv, "")
	f, _, h := served(t)
	key := f.A.Keys["both"]
	for url, why := range map[string]string{
		"http://8.8.8.8/hook":           "must be an https URL",
		"https://127.0.0.1/hook":        "Its address 127.0.0.1 is a loopback address.",
		"https://localhost:8443/hook":   "Its host localhost resolves to ",
		"https://[::1]/hook":            "loopback",
		"https://10.1.2.3/hook":         "private",
		"https://192.168.1.10/hook":     "private",
		"https://172.16.0.1/hook":       "private",
		"https://[fd00::1]/hook":        "private",
		"https://100.64.0.1/hook":       "private",
		"https://169.254.169.254/meta":  "link-local",
		"https://[fe80::1]/hook":        "link-local",
		"https://224.0.0.1/hook":        "multicast",
		"https://0.0.0.0/hook":          "unspecified",
		"https://[::ffff:127.0.0.1]/x":  "loopback",
		"https://[64:ff9b::7f00:1]/x":   "a NAT64 address of 127.0.0.1, a loopback address",
		"https://[2002:a9fe:a9fe::]/x":  "a 6to4 address of 169.254.169.254, a link-local address",
		"https://[::127.0.0.1]/x":       "IPv4-compatible",
		"https://[fec0::1]/x":           "site-local",
		"https://198.18.0.1/x":          "benchmarking",
		"https://192.0.2.1/x":           "documentation",
		"https://240.0.0.1/x":           "reserved",
		"https://255.255.255.255/x":     "broadcast",
		"https://user:pw@8.8.8.8/hook":  "user name",
		"https://no-such-host.invalid/": "does not resolve",
	} {
		body, _ := json.Marshal(map[string]any{"url": url, "events": []string{"ping"}})
		res := request(h, http.MethodPost, webhooksURL, key, string(body))
		if res.Code != 400 || !strings.Contains(res.Body.String(), why) {
			t.Errorf("%s: %d %s, want 400 saying %q", url, res.Code, res.Body, why)
		}
	}
	subscribe(t, h, key, "https://8.8.8.8/hook", "ping") // a public address literal needs no lookup
}

// The events of the review loop are queued with the state change, for the
// subscriptions of the revision's own client that name them.
func TestWebhookEventsQueued(t *testing.T) {
	t.Setenv(webhooks.AllowPrivateEnv, "1")
	f, app, h := served(t)
	both := f.A.Keys["both"]
	decided := subscribe(t, h, both, "http://127.0.0.1:9/decided", "revision.accepted", "revision.rejected")
	closed := subscribe(t, h, both, "http://127.0.0.1:9/closed", "revision.superseded", "revision.expired")
	theirs := subscribe(t, h, f.A.Keys["submit"], "http://127.0.0.1:9/theirs", "revision.accepted", "revision.rejected",
		"revision.superseded", "revision.expired")

	ids := submitted(t, h, both, submitURL, `{"sku":"SKU-1","name":"One"}`, `{"sku":"SKU-M","name":"M"}`, `{"sku":"SKU-NEW","name":"N"}`)
	submitted(t, h, both, submitURL+"?dryRun=true", `{"sku":"SKU-1","name":"Dry"}`)
	newer := submitted(t, h, both, submitURL, `{"sku":"SKU-1","name":"Two"}`)[0]
	token := fixture.SuperuserToken(t, app)
	decide := func(id int64, body string) {
		if r := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/revisions/records/%d", id), token, body); r.Code != 200 {
			t.Fatalf("decide %d: %d %s", id, r.Code, r.Body)
		}
	}
	decide(ids[1], `{"status":"accepted"}`)
	decide(ids[2], `{"status":"rejected","reason":"inaccurate","comment":"No."}`)
	if _, err := app.DB().Update("revisions", dbx.Params{"created": store.FormatTime(clock.Now(app).Add(-100 * 24 * time.Hour))},
		dbx.HashExp{"id": fmt.Sprint(newer)}).Execute(); err != nil {
		t.Fatal(err)
	}
	if n, err := store.New(app).Proposals().ExpireOverdue(clock.Now(app)); err != nil || n != 1 {
		t.Fatalf("expired %d, %v", n, err)
	}

	events := func(id int64) map[string]int64 {
		out := map[string]int64{}
		for _, d := range deliveries(t, h, both, id) {
			out[d.Event] = *d.RevisionID
		}
		return out
	}
	if got := events(decided.ID); len(got) != 2 || got["revision.accepted"] != ids[1] || got["revision.rejected"] != ids[2] {
		t.Errorf("decisions: %v", got)
	}
	if got := events(closed.ID); len(got) != 2 || got["revision.superseded"] != ids[0] || got["revision.expired"] != newer {
		t.Errorf("closings: %v", got)
	}
	if ds := deliveries(t, h, f.A.Keys["submit"], theirs.ID); len(ds) != 0 {
		t.Errorf("another client's subscription got the events: %+v", ds)
	}

	// the payload is the revision as the vendor's list shows it then
	var payload struct {
		Type, Timestamp string
		Data            json.RawMessage
	}
	var raw string
	if err := app.DB().Select("payload").From("webhook_deliveries").
		Where(dbx.HashExp{"event": "revision.rejected"}).Row(&raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(raw), &payload); err != nil {
		t.Fatal(err)
	}
	list := request(h, http.MethodGet, fmt.Sprintf("%s?sku=SKU-NEW", revisionsURL), both, "").Body.String()
	if payload.Type != "revision.rejected" || !strings.Contains(list, string(payload.Data)) || !strings.Contains(raw, `"reason":"inaccurate"`) {
		t.Errorf("payload %s, list %s", raw, list)
	}
	if _, err := time.Parse(time.RFC3339, payload.Timestamp); err != nil {
		t.Errorf("timestamp %q: %v", payload.Timestamp, err)
	}
}

// Reviewers see their organization's subscriptions and deliveries in the
// dashboard, read-only; nobody reads a secret through the records API.
func TestWebhookRecords(t *testing.T) {
	t.Setenv(webhooks.AllowPrivateEnv, "1")
	f, app, h := served(t)
	id := subscribe(t, h, f.A.Keys["both"], "http://127.0.0.1:9/hook", "ping").ID
	if _, err := store.New(app).Outbox().QueuePing(f.A.Org, f.A.Clients["both"], id); err != nil {
		t.Fatal(err)
	}
	super, revA, revB := fixture.SuperuserToken(t, app), fixture.ReviewerToken(t, app, string(f.A.Org)), fixture.ReviewerToken(t, app, string(f.B.Org))
	records := "/api/collections/webhooks/records"
	for _, c := range []struct {
		name, method, url, token, body string
		status                         int
		has, hasNot                    string
	}{
		{"superuser list", http.MethodGet, records, super, "", 200, `"url":"http://127.0.0.1:9/hook"`, "secret"},
		{"superuser view", http.MethodGet, fmt.Sprintf("%s/%d", records, id), super, "", 200, `"events":["ping"]`, "secret"},
		{"reviewer of A lists", http.MethodGet, records, revA, "", 200, `"totalItems":1`, "secret"},
		{"reviewer of B lists", http.MethodGet, records, revB, "", 200, `"totalItems":0`, ""},
		{"reviewer of A updates", http.MethodPatch, fmt.Sprintf("%s/%d", records, id), revA, `{"active":false}`, 403, "", ""},
		{"reviewer of A deletes", http.MethodDelete, fmt.Sprintf("%s/%d", records, id), revA, "", 403, "", ""},
		{"reviewer of A sorts by secret", http.MethodGet, records + "?filter=" + "secret~'v1'", revA, "", 400, "", ""},
		{"deliveries, reviewer of A", http.MethodGet, "/api/collections/webhook_deliveries/records", revA, "", 200, `"event":"ping"`, ""},
		{"deliveries, reviewer of B", http.MethodGet, "/api/collections/webhook_deliveries/records", revB, "", 200, `"totalItems":0`, ""},
		{"deliveries, guest", http.MethodGet, "/api/collections/webhook_deliveries/records", "", "", 200, `"totalItems":0`, ""},
	} {
		res := requestAuth(h, c.method, c.url, c.token, c.body)
		if res.Code != c.status || !strings.Contains(res.Body.String(), c.has) || (c.hasNot != "" && strings.Contains(res.Body.String(), c.hasNot)) {
			t.Errorf("%s: %d %s", c.name, res.Code, res.Body)
		}
	}
}

// TestWebhookMessageIDs: each delivery has its own message id, msg_ and
// 26 characters, shown in the delivery log (and sent as webhook-id).
func TestWebhookMessageIDs(t *testing.T) {
	t.Setenv(webhooks.AllowPrivateEnv, "1")
	f, _, h := served(t)
	both := f.A.Keys["both"]
	w := subscribe(t, h, both, "http://127.0.0.1:9/ids", "ping")
	for range 3 {
		if res := request(h, http.MethodPost, fmt.Sprintf("%s/%d/test", webhooksURL, w.ID), both, ""); res.Code/100 != 2 {
			t.Fatalf("ping: %d %s", res.Code, res.Body)
		}
	}
	shape := regexp.MustCompile(`^msg_[0-9A-Z]{26}$`)
	seen := map[string]bool{}
	for _, d := range deliveries(t, h, both, w.ID) {
		if !shape.MatchString(d.MessageID) || seen[d.MessageID] {
			t.Errorf("delivery %d: message id %q", d.ID, d.MessageID)
		}
		seen[d.MessageID] = true
	}
	if len(seen) != 3 {
		t.Errorf("%d distinct message ids, want 3", len(seen))
	}
}
