package store

import (
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// ClockKey holds, in app.Store(), the clock of the service's rules that
// depend on time passing (API keys' grace and rate limits, reviewers'
// claims). Unset, it is time.Now; a test sets its own to move time by hand.
const ClockKey = "enrichmentClock"

// Clock is app's clock.
func Clock(app core.App) func() time.Time {
	if now, ok := app.Store().Get(ClockKey).(func() time.Time); ok {
		return now
	}
	return time.Now
}
