package enrichment

import (
	"slices"
	"time"
)

// Client is an API client: a key's owner, its organization and its scopes.
type Client struct {
	ID         int64     `json:"id"`
	Org        Org       `json:"organization"`
	Name       string    `json:"name"`
	KeyPrefix  string    `json:"keyPrefix"`
	Scopes     []string  `json:"scopes"`
	Active     bool      `json:"active"`
	LastUsedAt time.Time `json:"lastUsedAt,omitzero"`
}

// HasScope reports whether the client was granted scope.
func (c *Client) HasScope(scope string) bool {
	return slices.Contains(c.Scopes, scope)
}
