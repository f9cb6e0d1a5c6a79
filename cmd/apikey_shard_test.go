package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
)

// TestAPIKeyShardTag checks that an instance with a shard makes keys a
// proxy can route by (docs/scaling.md), when created and when rotated, and
// that a bad shard name makes no key at all.
func TestAPIKeyShardTag(t *testing.T) {
	app := fixture.Empty(t)
	org := orgViaCLI(t, app, "Acme")

	t.Setenv(apikey.ShardEnv, "eu1")
	id, key := keyViaCLI(t, app, "--org", org)
	if !strings.HasPrefix(key, "cek_eu1_") || len(key) != len("cek_eu1_")+43 {
		t.Fatalf("key of shard eu1: %q", key)
	}
	rec := apiClientRecord(t, app, id)
	if rec.GetString("keyHash") != apikey.Hash(key) || rec.GetString("keyPrefix") != key[:16] {
		t.Errorf("stored hash %q, prefix %q for key %q", rec.GetString("keyHash"), rec.GetString("keyPrefix"), key)
	}
	r := mustRunCmd(t, apikeyCommand, app, "rotate", store.FormatID(id), "--grace", "0", "--json")
	var rotated struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rotated); err != nil || !strings.HasPrefix(rotated.Key, "cek_eu1_") {
		t.Errorf("rotated key of shard eu1: %q (%v)", r.stdout, err)
	}

	t.Setenv(apikey.ShardEnv, "EU-1")
	before := apiClientCount(t, app)
	wantCmdErr(t, runCmd(apikeyCommand, app, "create", "--org", org), apikey.ShardEnv)
	if n := apiClientCount(t, app); n != before {
		t.Errorf("a bad shard name created a client: %d clients, want %d", n, before)
	}
}
