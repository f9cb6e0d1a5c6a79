// Package apikey makes and hashes API keys. A key is shown once at creation;
// only its SHA-256 hash is stored.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
)

// Prefix marks a string as one of our keys, for people and secret scanners.
const Prefix = "cek_"

// shownRandom is how much of a key's random part is kept in clear to tell
// keys apart in listings: eight characters (48 of its 256 bits).
const shownRandom = 8

// ShardEnv names the environment variable that tags the keys an instance
// makes with its shard, cek_<shard>_…, so that a reverse proxy in front of
// several instances can route a request by its key's first characters,
// without a lookup (docs/scaling.md). Keys made before keep working on the
// instance that made them.
const ShardEnv = "ENRICHMENT_KEY_SHARD"

// shardName is what a shard tag may be: short, and nothing a proxy's
// pattern or a URL would need to escape.
var shardName = regexp.MustCompile(`^[a-z0-9]{1,16}$`)

// ShardFromEnv is the shard ShardEnv names, "" when it is unset.
func ShardFromEnv() (string, error) {
	shard := os.Getenv(ShardEnv)
	if shard != "" && !shardName.MatchString(shard) {
		return "", fmt.Errorf("%s=%q: a shard is 1 to 16 lower-case letters and digits", ShardEnv, shard)
	}
	return shard, nil
}

// Key is a freshly generated key: Raw goes to the caller once, Hash and
// Shown are stored.
type Key struct {
	Raw   string
	Hash  string
	Shown string // the marker, the shard tag and the first random characters, safe to list
}

// New generates a key from 32 random bytes, tagged with shard unless it is
// empty (ShardFromEnv). An untagged key never starts as a tagged one would,
// so a proxy's pattern for a shard cannot catch it.
func New(shard string) Key {
	tag := Prefix
	if shard != "" {
		tag += shard + "_"
	}
	for {
		var b [32]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails since Go 1.24
		random := base64.RawURLEncoding.EncodeToString(b[:])
		if shard == "" && looksTagged.MatchString(random) {
			continue
		}
		raw := tag + random
		return Key{Raw: raw, Hash: Hash(raw), Shown: raw[:len(tag)+shownRandom]}
	}
}

// looksTagged matches a random part that starts like a shard tag.
var looksTagged = regexp.MustCompile(`^[a-z0-9]{1,16}_`)

// Hash is the stored form of a raw key: SHA-256, lower-case hex.
func Hash(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}
