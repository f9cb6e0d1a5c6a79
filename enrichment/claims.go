package enrichment

import (
	"fmt"
	"time"

	validation "github.com/pocketbase/ozzo-validation/v4"
)

// ClaimTTL is how long a reviewer's claim on a pending revision holds
// unless it is renewed (docs/review.md).
const ClaimTTL = 120 * time.Second

// Claim is a reviewer's hold on a pending revision.
type Claim struct {
	Revision  string
	Reviewer  string // the reviewer's record id
	Email     string // the reviewer's email, which the page shows
	Name      string // the reviewer's name, "" when they gave none
	ExpiresAt time.Time
}

// Live reports whether the claim still holds at now.
func (c Claim) Live(now time.Time) bool {
	return c.Reviewer != "" && now.Before(c.ExpiresAt)
}

// HeldAgainst reports whether the claim stops reviewer (a reviewer's
// record id; "" for an identity that is no reviewer, such as a superuser)
// from deciding or claiming the revision at now: it is live and someone
// else's.
func (c Claim) HeldAgainst(reviewer string, now time.Time) bool {
	return c.Live(now) && c.Reviewer != reviewer
}

// Holder names the claim's reviewer for people: their name and email, or
// the email alone.
func (c Claim) Holder() string {
	if c.Name != "" {
		return c.Name + " <" + c.Email + ">"
	}
	return c.Email
}

// RuleClaimHeld names the refusal of a claim or a decision on a revision
// that another reviewer holds.
const RuleClaimHeld = "validation_claim_held"

// ClaimHeld is the 409 of a claim or a decision on a revision that c holds
// for another reviewer; its data names the holder under "claim" (params
// reviewer, email, name, expiresAt).
func ClaimHeld(c Claim) *Error {
	detail := fmt.Sprintf("Claimed by %s until %s.", c.Holder(), c.ExpiresAt.UTC().Format(time.RFC3339))
	return &Error{Code: CodeConflict, Field: "claim", Rule: RuleClaimHeld,
		Message: fmt.Sprintf("Revision %s is claimed by %s, who is reviewing it; try again when they are done.", c.Revision, c.Holder()),
		Details: validation.NewError(RuleClaimHeld, detail).SetParams(map[string]any{
			"reviewer": c.Reviewer, "email": c.Email, "name": c.Name,
			"expiresAt": c.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000Z"),
		})}
}
