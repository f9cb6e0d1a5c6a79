package apikey_test

import (
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/apikey"
)

func TestShardTag(t *testing.T) {
	k := apikey.New("eu1")
	if !strings.HasPrefix(k.Raw, "cek_eu1_") || len(k.Raw) != len("cek_eu1_")+43 {
		t.Fatalf("tagged key %q", k.Raw)
	}
	if k.Shown != k.Raw[:len("cek_eu1_")+8] || k.Hash != apikey.Hash(k.Raw) {
		t.Errorf("tagged key %q shown as %q", k.Raw, k.Shown)
	}
	// an untagged key never starts like a tagged one: 10,000 keys would
	// hold about 160 with a random part like "a_…" or "x9_…" otherwise
	for range 10_000 {
		k := apikey.New("")
		rest := strings.TrimPrefix(k.Raw, apikey.Prefix)
		if len(rest) != 43 {
			t.Fatalf("untagged key %q", k.Raw)
		}
		if i := strings.IndexByte(rest, '_'); i > 0 && i <= 16 && strings.ToLower(rest[:i]) == rest[:i] && !strings.ContainsAny(rest[:i], "-") {
			t.Fatalf("untagged key %q starts like a key of shard %q", k.Raw, rest[:i])
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	for value, ok := range map[string]bool{"": true, "eu1": true, "0123456789abcdef": true,
		"EU1": false, "eu_1": false, "0123456789abcdefg": false, "eu-1": false} {
		t.Setenv(apikey.ShardEnv, value)
		shard, err := apikey.ShardFromEnv()
		if ok != (err == nil) || (ok && shard != value) {
			t.Errorf("%s=%q: shard %q, error %v", apikey.ShardEnv, value, shard, err)
		}
	}
}
