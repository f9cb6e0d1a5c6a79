package routes_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

func TestRateLimit(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	clock := stopClock(app)
	h := handler(t, app)
	limited := f.A.Keys["read"]
	if _, err := app.DB().Update("api_clients", dbx.Params{"rateLimit": 2},
		dbx.HashExp{"id": store.FormatID(f.A.Clients["read"])}).Execute(); err != nil {
		t.Fatal(err)
	}
	get := func(key string) (int, http.Header) {
		r := request(h, http.MethodGet, "/api/enrichment/attribute-templates", key, "")
		return r.Code, r.Header()
	}

	// 2 per second holds 4: four pass with the headers counting down
	for i := range 4 {
		code, hdr := get(limited)
		if code != 200 || hdr.Get("RateLimit-Limit") != "4" || hdr.Get("RateLimit-Remaining") != strconv.Itoa(3-i) || hdr.Get("RateLimit-Reset") == "" {
			t.Fatalf("request %d: %d %v", i+1, code, hdr)
		}
	}
	code, hdr := get(limited)
	if code != 429 || hdr.Get("Retry-After") != "1" || hdr.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("fifth request: %d %v", code, hdr)
	}
	r := request(h, http.MethodGet, "/api/enrichment/products", limited, "")
	if r.Code != 429 || !contains(r.Body.String(), `"status":429`, "Rate limit exceeded") {
		t.Errorf("429 body: %s", r.Body)
	}

	// another key, even of the same organization, has its own bucket; unlimited keys get no headers
	if code, hdr := get(f.A.Keys["both"]); code != 200 || hdr.Get("RateLimit-Limit") != "" {
		t.Errorf("unlimited key: %d %v", code, hdr)
	}
	// an unknown key is refused before any bucket is touched
	if code, hdr := get("cek_unknown"); code != 401 || hdr.Get("RateLimit-Limit") != "" {
		t.Errorf("unknown key: %d %v", code, hdr)
	}

	// the bucket refills at 2 per second: 0.4 s is not yet a request, 0.5 s is one
	clock.advance(400 * time.Millisecond)
	if code, hdr := get(limited); code != 429 {
		t.Errorf("after 0.4 s: %d %v", code, hdr)
	}
	clock.advance(100 * time.Millisecond)
	if code, hdr := get(limited); code != 200 || hdr.Get("RateLimit-Remaining") != "0" {
		t.Errorf("after 0.5 s: %d %v", code, hdr)
	}
}

func TestRotatedKey(t *testing.T) {
	f, app, h := served(t)
	st := store.New(app)
	get := func(key string) int {
		return request(h, http.MethodGet, "/api/enrichment/attribute-templates", key, "").Code
	}
	old := f.A.Keys["read"]
	fresh := apikey.New("")
	if _, err := st.Accounts().RotateKey(f.A.Clients["read"], fresh.Hash, fresh.Shown, time.Hour); err != nil {
		t.Fatal(err)
	}
	if get(old) != 200 || get(fresh.Raw) != 200 {
		t.Fatalf("during the grace period: old %d, new %d", get(old), get(fresh.Raw))
	}
	// the grace period ends
	past := store.FormatTime(clock.Now(app).Add(-time.Second))
	if _, err := app.DB().Update("api_clients", dbx.Params{"previousKeyExpiresAt": past},
		dbx.HashExp{"id": store.FormatID(f.A.Clients["read"])}).Execute(); err != nil {
		t.Fatal(err)
	}
	if get(old) != 401 || get(fresh.Raw) != 200 {
		t.Errorf("after the grace period: old %d, new %d", get(old), get(fresh.Raw))
	}

	// rotating without grace ends the old key at once; revoking ends both
	newer := apikey.New("")
	if _, err := st.Accounts().RotateKey(f.A.Clients["read"], newer.Hash, newer.Shown, 0); err != nil {
		t.Fatal(err)
	}
	if get(fresh.Raw) != 401 || get(newer.Raw) != 200 {
		t.Errorf("rotation without grace: previous %d, new %d", get(fresh.Raw), get(newer.Raw))
	}
	last := apikey.New("")
	if _, err := st.Accounts().RotateKey(f.A.Clients["read"], last.Hash, last.Shown, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Accounts().RevokeClient(f.A.Clients["read"]); err != nil {
		t.Fatal(err)
	}
	if get(newer.Raw) != 401 || get(last.Raw) != 401 {
		t.Errorf("after revoking: previous %d, current %d", get(newer.Raw), get(last.Raw))
	}
	if _, err := st.Accounts().RotateKey(f.A.Clients["read"], apikey.New("").Hash, "x", time.Hour); err == nil {
		t.Error("a revoked key was rotated")
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
