// Package clock is the service's one clock. Every rule that depends on
// time passing (a key's grace, rate limits, claims, expiry, retention,
// the stamps of decisions and writes) reads the time of the app it serves
// here, so that a test sets the time instead of sleeping for it to pass.
package clock

import (
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// key holds, in app.Store(), the app's clock when one is set.
const key = "enrichmentClock"

// Now is the time on app's clock.
func Now(app core.App) time.Time {
	return Of(app)()
}

// Of is app's clock: the machine's time unless Set gave it another.
func Of(app core.App) func() time.Time {
	if now, ok := app.Store().Get(key).(func() time.Time); ok {
		return now
	}
	return time.Now
}

// Set makes app read the time from now from then on; tests use it to move
// time by hand.
func Set(app core.App, now func() time.Time) {
	app.Store().Set(key, now)
}

// Wall is the machine's time, for what the operating system or the
// process measures rather than the service's rules: a connection's read
// deadline, the moment the process started. No test moves it.
func Wall() time.Time {
	return time.Now()
}
