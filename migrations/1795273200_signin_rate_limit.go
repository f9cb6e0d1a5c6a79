package migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// PocketBase's rate limiter, off by default, turned on for password
// sign-in only: the "*:auth" rule covers auth-with-password (and OTP,
// OAuth2) of every auth collection, the reviewers' and the superusers',
// each in its own window per client address. No other rule: the reviewers'
// page lists and counts through the records API, and the API has its own
// per-key limits. A limiter an operator already turned on is left as it is;
// rules of a limiter that was off (PocketBase's four defaults, unless
// edited) are replaced.
func init() {
	m.Register(func(app core.App) error {
		s := app.Settings()
		if s.RateLimits.Enabled {
			return nil
		}
		s.RateLimits.Enabled = true
		s.RateLimits.Rules = []core.RateLimitRule{{Label: "*:auth", MaxRequests: 10, Duration: 60}}
		return app.Save(s)
	}, func(app core.App) error {
		s := app.Settings()
		s.RateLimits.Enabled = false
		s.RateLimits.Rules = []core.RateLimitRule{ // PocketBase's defaults
			{Label: "*:auth", MaxRequests: 2, Duration: 3},
			{Label: "*:create", MaxRequests: 20, Duration: 5},
			{Label: "/api/batch", MaxRequests: 3, Duration: 1},
			{Label: "/api/", MaxRequests: 300, Duration: 10},
		}
		return app.Save(s)
	})
}
