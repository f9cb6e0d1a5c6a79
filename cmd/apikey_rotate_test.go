package cmd

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

func TestAPIKeyRateLimitFlag(t *testing.T) {
	app := fixture.Empty(t)
	org := orgViaCLI(t, app, "Acme")
	def, _ := keyViaCLI(t, app, "--org", org)
	open, _ := keyViaCLI(t, app, "--org", org, "--rate-limit", "0")
	five, _ := keyViaCLI(t, app, "--org", org, "--rate-limit", "5")
	for id, want := range map[int64]int{def: 20, open: 0, five: 5} {
		if got := apiClientRecord(t, app, id).GetInt("rateLimit"); got != want {
			t.Errorf("key %d: rateLimit %d, want %d", id, got, want)
		}
	}
	wantCmdErr(t, runCmd(apikeyCommand, app, "create", "--org", org, "--rate-limit", "-1"), "--rate-limit")

	list := mustRunCmd(t, apikeyCommand, app, "list", "--org", org).stdout
	if !strings.Contains(list, "RATE/S") || !strings.Contains(list, "unlimited") || !strings.Contains(list, " 20 ") {
		t.Errorf("list:\n%s", list)
	}
}

func TestAPIKeyRotate(t *testing.T) {
	app := fixture.Empty(t)
	org := orgViaCLI(t, app, "Acme")
	id, old := keyViaCLI(t, app, "--org", org, "--scopes", "catalog:read,catalog:submit", "--rate-limit", "7")

	r := mustRunCmd(t, apikeyCommand, app, "rotate", store.FormatID(id), "--grace", "2h", "--json")
	var got struct {
		ID        int64   `json:"id"`
		Key       string  `json:"key"`
		ExpiresAt *string `json:"previousKeyExpiresAt"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("rotate --json printed %q: %v", r.stdout, err)
	}
	if got.ID != id || !strings.HasPrefix(got.Key, apikey.Prefix) || got.Key == old || got.ExpiresAt == nil {
		t.Fatalf("rotate: %+v", got)
	}
	if exp, err := time.Parse(time.RFC3339, *got.ExpiresAt); err != nil || time.Until(exp) < 119*time.Minute || time.Until(exp) > 2*time.Hour {
		t.Errorf("grace ends at %s (%v)", *got.ExpiresAt, err)
	}
	st := store.New(app)
	for _, key := range []string{old, got.Key} {
		c, err := st.Accounts().ClientByKeyHash(apikey.Hash(key), time.Now())
		if err != nil || c.ID != id || c.RateLimit != 7 || len(c.Scopes) != 2 {
			t.Errorf("key %s…: %+v %v", key[:8], c, err)
		}
	}
	assertRawKeyNotStored(t, app, got.Key)

	// plain output: the key on stdout, when the old one stops on stderr
	plain := mustRunCmd(t, apikeyCommand, app, "rotate", store.FormatID(id), "--grace", "0")
	if !strings.HasPrefix(plain.stdout, apikey.Prefix) || !strings.Contains(plain.stderr, "no longer works") {
		t.Errorf("rotate without grace: %q / %q", plain.stdout, plain.stderr)
	}
	if _, err := st.Accounts().ClientByKeyHash(apikey.Hash(got.Key), time.Now()); err == nil {
		t.Error("the key rotated out without grace still works")
	}

	wantCmdErr(t, runCmd(apikeyCommand, app, "rotate", "999"), "no API key with id 999")
	wantCmdErr(t, runCmd(apikeyCommand, app, "rotate", "abc"), "KEY_ID")
	wantCmdErr(t, runCmd(apikeyCommand, app, "rotate", store.FormatID(id), "--grace", "-1h"), "--grace")
	mustRunCmd(t, apikeyCommand, app, "revoke", store.FormatID(id))
	wantCmdErr(t, runCmd(apikeyCommand, app, "rotate", store.FormatID(id)), "revoked")
}

// TestAPIKeyRotateKeepsEachGrace: rotating twice within a grace period
// leaves every rotated-out key working until its own grace ends; a key
// rotated out without grace stops at once, and an old key stops once its
// grace is over.
func TestAPIKeyRotateKeepsEachGrace(t *testing.T) {
	app := fixture.Empty(t)
	org := orgViaCLI(t, app, "Acme")
	id, k0 := keyViaCLI(t, app, "--org", org)
	rotate := func(grace string) string {
		t.Helper()
		var got struct{ Key string }
		r := mustRunCmd(t, apikeyCommand, app, "rotate", store.FormatID(id), "--grace", grace, "--json")
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Key == "" {
			t.Fatalf("rotate printed %q: %v", r.stdout, err)
		}
		return got.Key
	}
	st := store.New(app)
	at := time.Now() // the moment the keys are checked at
	works := func(what, key string, want bool) {
		t.Helper()
		c, err := st.Accounts().ClientByKeyHash(apikey.Hash(key), at)
		if got := err == nil && c.ID == id; got != want {
			t.Errorf("%s: works %v, want %v (%v)", what, got, want, err)
		}
	}
	k1 := rotate("1h")
	k2 := rotate("2h")
	works("the first key, within its own grace", k0, true)
	works("the second key", k1, true)
	works("the current key", k2, true)
	k3 := rotate("0")
	works("the third key, rotated out without grace", k2, false)
	works("the first key after a rotation without grace", k0, true)
	works("the second key after a rotation without grace", k1, true)
	works("the current key", k3, true)

	// the first key's grace ends an hour on, the second's an hour later
	at = time.Now().Add(time.Hour + time.Minute)
	works("the first key once its grace is over", k0, false)
	works("the second key", k1, true)
	at = time.Now().Add(2*time.Hour + time.Minute)
	works("the second key once its grace is over", k1, false)
	works("the current key", k3, true)
}
