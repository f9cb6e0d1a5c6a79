package store

import (
	"regexp"
	"testing"
	"time"
)

// TestNewMessageID: msg_ and 26 characters, unique, and in the order of
// their creation time.
func TestNewMessageID(t *testing.T) {
	shape := regexp.MustCompile(`^msg_[0-9A-Z]{26}$`)
	seen := map[string]bool{}
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	prev := ""
	for i := range 10_000 {
		id := NewMessageID(start.Add(time.Duration(i) * time.Millisecond))
		if !shape.MatchString(id) {
			t.Fatalf("id %q", id)
		}
		if seen[id] {
			t.Fatalf("id %q twice", id)
		}
		if id <= prev {
			t.Fatalf("id %q after %q, a millisecond later", id, prev)
		}
		seen[id], prev = true, id
	}
}
