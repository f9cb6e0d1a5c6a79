package enrichment

import (
	"testing"
	"time"
)

// A claim stops everyone but its reviewer until it expires; a superuser
// (no reviewer id) is stopped by any live claim; no claim stops nobody.
func TestClaimHeldAgainst(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ann := Claim{Revision: "7", Reviewer: "ann", Email: "ann@example.com", ExpiresAt: now.Add(time.Second)}
	expired := ann
	expired.ExpiresAt = now
	for _, c := range []struct {
		name     string
		claim    Claim
		reviewer string
		held     bool
	}{
		{"another reviewer, live", ann, "bob", true},
		{"its reviewer", ann, "ann", false},
		{"a superuser, live", ann, "", true},
		{"expired at this very moment", expired, "bob", false},
		{"no claim", Claim{}, "bob", false},
		{"no claim, a superuser", Claim{}, "", false},
	} {
		if got := c.claim.HeldAgainst(c.reviewer, now); got != c.held {
			t.Errorf("%s: held %v, want %v", c.name, got, c.held)
		}
	}
}

// The refusal names the holder by name and email, or email alone, and
// carries them in its details for the page.
func TestClaimHeldNamesTheHolder(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	named := ClaimHeld(Claim{Revision: "7", Reviewer: "r1", Email: "ann@example.com", Name: "Ann", ExpiresAt: at})
	if named.Code != CodeConflict || named.Field != "claim" || named.Message != "Revision 7 is claimed by Ann <ann@example.com>, who is reviewing it; try again when they are done." {
		t.Errorf("named: %+v", named)
	}
	bare := ClaimHeld(Claim{Revision: "7", Reviewer: "r1", Email: "ann@example.com", ExpiresAt: at})
	if bare.Details.Error() != "Claimed by ann@example.com until 2026-01-02T03:04:05Z." {
		t.Errorf("email only: %q", bare.Details.Error())
	}
}
