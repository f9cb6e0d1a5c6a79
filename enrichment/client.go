package enrichment

import (
	"slices"
	"time"
)

// DefaultRateLimit is a new key's limit in requests per second; its bucket
// holds twice as many, so short bursts pass.
const DefaultRateLimit = 20

// Client is an API client: a key's owner, its organization and its scopes.
type Client struct {
	ID         int64     `json:"id"`
	Org        Org       `json:"organization"`
	Name       string    `json:"name"`
	KeyPrefix  string    `json:"keyPrefix"`
	Scopes     []string  `json:"scopes"`
	Active     bool      `json:"active"`
	RateLimit  int       `json:"rateLimit"` // requests per second; 0: unlimited
	LastUsedAt time.Time `json:"lastUsedAt,omitzero"`
	// PreviousKeyExpiresAt is when a rotated-out key stops working (zero: none).
	PreviousKeyExpiresAt time.Time `json:"previousKeyExpiresAt,omitzero"`
	// Catalog is what of the organization's catalog the client's keys see
	// (selection.go).
	Catalog Selection `json:"catalog"`
}

// HasScope reports whether the client was granted scope.
func (c *Client) HasScope(scope string) bool {
	return slices.Contains(c.Scopes, scope)
}
