// Package apikey makes and hashes API keys. A key is shown once at creation;
// only its SHA-256 hash is stored.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// Prefix marks a string as one of our keys, for people and secret scanners.
const Prefix = "cek_"

// prefixLen is how much of a key is kept in clear to tell keys apart in
// listings: the marker and eight random characters (48 of its 256 bits).
const prefixLen = len(Prefix) + 8

// Key is a freshly generated key: Raw goes to the caller once, Hash and
// Shown are stored.
type Key struct {
	Raw   string
	Hash  string
	Shown string // the first characters, safe to list
}

// New generates a key from 32 random bytes.
func New() Key {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails since Go 1.24
	raw := Prefix + base64.RawURLEncoding.EncodeToString(b[:])
	return Key{Raw: raw, Hash: Hash(raw), Shown: raw[:prefixLen]}
}

// Hash is the stored form of a raw key: SHA-256, lower-case hex.
func Hash(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}
