package routes_test

import (
	"context"
	"encoding/json/v2"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/logger"
)

// TestKeysNotInRequestLogs makes requests with valid, unknown, revoked and
// malformed keys and checks that PocketBase's request logs record each
// request but hold no raw key, nor its secret part.
func TestKeysNotInRequestLogs(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	if app.Settings().Logs.MaxDays == 0 {
		app.Settings().Logs.MaxDays = 7 // note: 0 turns request logging off
	}
	h := handler(t, app)

	valid, revoked := f.A.Keys["both"], f.A.Keys["revoked"]
	unknown := "cek_" + strings.Repeat("Q", 43)
	type probe struct {
		name, method, path, key, body string
		status                        int
		query                         string            // more of the query string, raw
		headers                       map[string]string // more headers
	}
	encoded := "%63" + valid[1:]                                                 // %63ek_...
	twice := "%2563" + strings.Replace(unknown[1:], "_", "%255F", 1)             // %2563ek%255F...
	encodedAll := "%63%65%6B%5F" + strings.TrimPrefix(revoked, "cek_")           // every prefix byte encoded
	path := func(key string) string { return "/api/enrichment/products/" + key } // a 404, logged with its path
	probes := []probe{
		{"valid key, templates", http.MethodGet, "/api/enrichment/attribute-templates", valid, "", 200, "", nil},
		{"valid key, export", http.MethodGet, exportURL, valid, "", 200, "", nil},
		{"valid key, lookup", http.MethodPost, lookupURL, valid, `{"skus":["SKU-1"]}`, 200, "", nil},
		{"valid key, submission", http.MethodPost, submitURL, valid, `{"items":[{"sku":"SKU-1","name":"Logged"}]}`, 200, "", nil},
		{"valid key, bad submission", http.MethodPost, submitURL, valid, `{"items":[{"sku":"SKU-1","confidence":500}]}`, 400, "", nil},
		{"valid key, unknown path", http.MethodGet, "/api/enrichment/nope", valid, "", 404, "", nil},
		{"unknown key", http.MethodGet, exportURL, unknown, "", 401, "", nil},
		{"revoked key", http.MethodGet, exportURL, revoked, "", 401, "", nil},
		{"revoked key, submission", http.MethodPost, submitURL, revoked, `{"items":[{"sku":"SKU-1","name":"x"}]}`, 401, "", nil},
		{"valid key with junk", http.MethodGet, exportURL, valid + "junk", "", 401, "", nil},
		{"read-only key, submission", http.MethodPost, submitURL, f.A.Keys["read"], `{"items":[{"sku":"SKU-1","name":"x"}]}`, 403, "", nil},
		{"key in the query string", http.MethodGet, exportURL, "", "", 401, routes.KeyHeader + "=" + valid, nil},
		{"key in the query, its underscore encoded", http.MethodGet, exportURL, "", "", 401,
			"apiKey=" + strings.Replace(revoked, "_", "%5F", 1) + "&page=1", nil},
		{"valid key, and again in the query", http.MethodGet, exportURL, valid, "", 200, "key=" + valid, nil},
		{"key in the query of PocketBase's records API", http.MethodGet, "/api/collections/products/records", "", "", 200,
			"key=" + unknown, nil},
		{"key in the query, percent-encoded", http.MethodGet, exportURL, "", "", 401, "k=" + encoded, nil},
		{"key in the query, encoded twice", http.MethodGet, exportURL, "", "", 401, "k=" + twice, nil},
		{"key as a query parameter's name", http.MethodGet, exportURL, valid, "", 200, encodedAll + "=1", nil},
		{"key in the path", http.MethodGet, path(valid), valid, "", 404, "", nil},
		{"key in the path, percent-encoded", http.MethodGet, path(encoded), valid, "", 404, "", nil},
		{"key in the path of PocketBase's records API", http.MethodGet, "/api/collections/" + encodedAll + "/records", "", "", 404, "", nil},
		{"key in the Referer", http.MethodGet, exportURL, valid, "", 200, "",
			map[string]string{"Referer": "https://vendor.example/run?key=" + valid}},
		{"key in the Referer, percent-encoded", http.MethodGet, exportURL, valid, "", 200, "",
			map[string]string{"Referer": "https://vendor.example/run?key=" + twice}},
		{"key in the User-Agent", http.MethodGet, exportURL, valid, "", 200, "",
			map[string]string{"User-Agent": "vendor-sync/1.0 (" + revoked + ")"}},
		{"key in the User-Agent, percent-encoded", http.MethodGet, "/api/health", "", "", 200, "",
			map[string]string{"User-Agent": "vendor-sync/1.0 " + encoded}},
	}
	for i, p := range probes {
		url := fmt.Sprintf("%s?logProbe=p%dq", p.path, i)
		if p.query != "" {
			url += "&" + p.query
		}
		req := httptest.NewRequest(p.method, url, strings.NewReader(p.body))
		req.Header.Set("Content-Type", "application/json")
		if p.key != "" {
			req.Header.Set(routes.KeyHeader, p.key)
		}
		for name, v := range p.headers {
			req.Header.Set(name, v)
		}
		res := httptest.NewRecorder()
		if h.ServeHTTP(res, req); res.Code != p.status {
			t.Errorf("%s: status %d, want %d: %s", p.name, res.Code, p.status, res.Body)
		}
	}

	// note: PocketBase logs each request from a goroutine into a batch that a
	// ticker writes every 3 s; flush it until every probe is there
	batch, ok := app.Logger().Handler().(*logger.BatchHandler)
	if !ok {
		t.Fatalf("app logger handler is %T, not PocketBase's batch handler", app.Logger().Handler())
	}
	flush := context.WithValue(context.Background(), logger.BlockKey, true)
	var logs []*core.Log
	var missing []string
	for deadline := clock.Wall().Add(10 * time.Second); ; {
		if err := batch.WriteAll(flush); err != nil {
			t.Fatal(err)
		}
		logs = nil
		if err := app.LogQuery().All(&logs); err != nil {
			t.Fatal(err)
		}
		missing = missing[:0]
		for i, p := range probes {
			if !logged(logs, fmt.Sprintf("logProbe=p%dq", i), p.status) {
				missing = append(missing, p.name)
			}
		}
		if len(missing) == 0 || clock.Wall().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(missing) > 0 {
		t.Fatalf("requests not in the logs after 10 s: %v (%d log rows)", missing, len(logs))
	}

	secrets := map[string]string{}
	for name, key := range map[string]string{"valid": valid, "revoked": revoked, "unknown": unknown, "read-only": f.A.Keys["read"]} {
		secrets[name+" key"] = key
		secrets[name+" key's secret part"] = strings.TrimPrefix(key, "cek_")[8:]
	}
	for _, l := range logs {
		data, err := json.Marshal(l.Data)
		if err != nil {
			t.Fatal(err)
		}
		row := l.Message + "\n" + string(data)
		for what, s := range secrets {
			if strings.Contains(row, s) {
				t.Errorf("%s in a log row: %s", what, row)
			}
		}
	}
	t.Logf("%d requests with %d distinct keys, %d log rows checked", len(probes), len(secrets)/2, len(logs))
}

// logged reports whether a request log row has probe in its url and the status.
func logged(logs []*core.Log, probe string, status int) bool {
	for _, l := range logs {
		url, _ := l.Data["url"].(string)
		if strings.Contains(url, probe) && fmt.Sprint(l.Data["status"]) == fmt.Sprint(status) {
			return true
		}
	}
	return false
}
