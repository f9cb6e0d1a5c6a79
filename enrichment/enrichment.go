// Package enrichment holds the service's domain: the names, states, limits
// and wire shapes that the store, the routes, the hooks and the command line
// share. The migrations spell the same values as literals (a released
// migration must not change with the code); migrations/schema_test.go checks
// that the two agree.
package enrichment

import (
	"encoding/json/v2"
	"fmt"
	"strconv"
)

// Scopes an API key can be granted.
const (
	ScopeRead   = "catalog:read"
	ScopeSubmit = "catalog:submit"
)

// Scopes lists every scope, in the order they are documented.
var Scopes = []string{ScopeRead, ScopeSubmit}

// Revision statuses: a revision starts pending and ends once, in one of the
// others. Reviewers accept or reject; the service supersedes and expires;
// a rollback turns an accepted revision into a reverted one, which is final.
const (
	StatusPending    = "pending"
	StatusAccepted   = "accepted"
	StatusRejected   = "rejected"
	StatusSuperseded = "superseded"
	StatusExpired    = "expired"
	StatusReverted   = "reverted"
)

// Statuses lists every revision status, in the order they are documented.
var Statuses = []string{StatusPending, StatusAccepted, StatusRejected, StatusSuperseded, StatusExpired, StatusReverted}

// Reasons a reviewer may give when something of a proposal is not applied,
// in the order they are documented.
var Reasons = []string{"inaccurate", "low_quality", "off_brand", "incomplete", "duplicate", "other"}

// MaxCommentLength bounds a reviewer's comment, in characters.
const MaxCommentLength = 2000

// DefaultProposalTTLDays is how many days a new organization's proposals may
// wait for review before they expire (0 would be never).
const DefaultProposalTTLDays = 90

// EnrichableFields are the product fields a proposal may change, in API order.
var EnrichableFields = []string{"name", "slug", "description", "attributes", "files"}

// ConfidenceBands are the metrics bands, in the order the API lists them.
var ConfidenceBands = []string{"0-49", "50-79", "80-100"}

// ConfidenceBand names the band of a confidence in 0..100.
func ConfidenceBand(confidence int) string {
	switch {
	case confidence >= 80:
		return "80-100"
	case confidence >= 50:
		return "50-79"
	default:
		return "0-49"
	}
}

// StatedConfidence is a stored revision's confidence as the vendor stated
// it: nil when the submission gave none, which the store keeps as 0 with
// no band (a number column is never null).
func StatedConfidence(confidence int, band string) *int {
	if band == "" {
		return nil
	}
	return &confidence
}

// Text limits of stored fields, in characters.
const (
	MaxNameLength        = 200    // template, option, brand and client names; SKU; externalId; brand slug
	MaxShortLength       = 50     // GTIN; an option's unit and data type
	MaxProductTextLength = 1000   // a product's name and slug
	MaxWebsiteLength     = 2000   // a brand's website
	MaxDescriptionLength = 100000 // a product's description
)

// Org identifies the organization a request acts for. It comes only from an
// authenticated API client (or an operator's --org), and every store query
// takes it first, so no query can forget the tenant.
type Org string

// MaxID is the largest id the API exposes: 2^53-1, the largest integer a
// JSON number holds exactly.
const MaxID = 1<<53 - 1

// IDText is an id as a JSON body gives it (or, where names are allowed, a
// name): a string, or the JSON integer the API shows ids as; either way
// its text, which the caller checks.
type IDText string

func (v *IDText) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*v = IDText(s)
		return nil
	}
	var id int64
	if err := json.Unmarshal(b, &id); err != nil {
		return fmt.Errorf("want an id as a string or an integer, got %s", b)
	}
	*v = IDText(strconv.FormatInt(id, 10))
	return nil
}

// ParseID reads an id where it crosses into the service (a request's
// parameter, a record's id): a decimal integer in 1..MaxID, else an error.
func ParseID(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil || strconv.FormatInt(n, 10) != s:
		return 0, fmt.Errorf("id %q is not a decimal integer", s)
	case n < 1 || n > MaxID:
		return 0, fmt.Errorf("id %d is outside 1..%d", n, int64(MaxID))
	}
	return n, nil
}
