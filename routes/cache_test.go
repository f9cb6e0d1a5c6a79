package routes_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

// The key and templates caches must never outlive a change, whoever makes
// it: here a plain SQLite connection of its own plays the command line
// writing beside the running server.
func TestCachesFollowWritesFromAnotherProcess(t *testing.T) {
	f, app, h := served(t)
	exec := anotherProcess(t, app)
	templates := func(key string) (int, string) {
		res := request(h, http.MethodGet, "/api/enrichment/attribute-templates", key, "")
		return res.Code, res.Body.String()
	}
	key := f.A.Keys["read"]
	for range 3 { // the first use writes lastUsedAt; the later ones are served from the caches
		if code, body := templates(key); code != 200 || !strings.Contains(body, `"name":"Shoes"`) {
			t.Fatalf("warming up: %d %s", code, body)
		}
	}

	exec("UPDATE attribute_templates SET name = 'Boots' WHERE name = 'Shoes' AND organization = ?", string(f.A.Org))
	if code, body := templates(key); code != 200 || !strings.Contains(body, `"name":"Boots"`) {
		t.Errorf("after another process renamed the template: %d %s", code, body)
	}
	exec("UPDATE api_clients SET active = FALSE WHERE id = ?", store.FormatID(f.A.Clients["read"]))
	if code, body := templates(key); code != 401 {
		t.Errorf("after another process revoked the key: %d %s", code, body)
	}
	if code, body := templates(f.A.Keys["both"]); code != 200 || !strings.Contains(body, `"name":"Boots"`) {
		t.Errorf("another key of the organization: %d %s", code, body)
	}
}

// Products carry their brand and their attributes' options from caches of
// the organization's brands and options; a change made beside the server
// shows in the next answer.
func TestProductBrandsAndOptionsFollowWritesFromAnotherProcess(t *testing.T) {
	f, app, h := served(t)
	exec := anotherProcess(t, app)
	lookup := func() string {
		res := request(h, http.MethodPost, "/api/enrichment/products/skus", f.A.Keys["read"], `{"skus":["SKU-M-RED"]}`)
		if res.Code != 200 {
			t.Fatalf("lookup: %d %s", res.Code, res.Body.String())
		}
		return res.Body.String()
	}
	for range 2 {
		if body := lookup(); !strings.Contains(body, `"name":"Acme"`) || !strings.Contains(body, `"unit":"EU"`) {
			t.Fatalf("warming up: %s", body)
		}
	}

	exec("UPDATE brands SET name = 'Acme Outdoor' WHERE name = 'Acme' AND organization = ?", string(f.A.Org))
	if body := lookup(); !strings.Contains(body, `"name":"Acme Outdoor"`) {
		t.Errorf("after another process renamed the brand: %s", body)
	}
	exec("UPDATE attribute_options SET unit = 'UK' WHERE unit = 'EU' AND organization = ?", string(f.A.Org))
	if body := lookup(); !strings.Contains(body, `"unit":"UK"`) {
		t.Errorf("after another process changed the unit: %s", body)
	}
	exec("DELETE FROM attribute_options WHERE unit = 'UK' AND organization = ?", string(f.A.Org))
	if body := lookup(); strings.Contains(body, `"unit":"UK"`) {
		t.Errorf("after another process deleted the option: %s", body)
	}
}

// A rotated-out key cached during its grace period stops at the grace's end
// even when nothing is written meanwhile.
func TestCachedGraceKeyEndsOnTime(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	clock := stopClock(app)
	h := handler(t, app)
	old := f.A.Keys["read"]
	rotated, err := store.New(app).Accounts().RotateKey(f.A.Clients["read"], apikey.New("").Hash, "cek_new", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	get := func() int {
		return request(h, http.MethodGet, "/api/enrichment/attribute-templates", old, "").Code
	}
	if a, b := get(), get(); a != 200 || b != 200 { // the first records the use, the second fills the cache
		t.Fatalf("during the grace period: %d, %d", a, b)
	}
	clock.set(rotated.PreviousKeyExpiresAt.Add(-time.Millisecond))
	if code := get(); code != 200 {
		t.Errorf("a millisecond before the grace ends: %d, want 200", code)
	}
	clock.set(rotated.PreviousKeyExpiresAt)
	if code := get(); code != 401 {
		t.Errorf("when the grace ends: %d, want 401", code)
	}
}
