package routes

import (
	"testing"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// SetClock makes app's key middleware read time from now (tests only).
func SetClock(app core.App, now func() time.Time) {
	app.Store().Set(clockKey, now)
}

// SetBodyIdle shortens the time a body may send nothing, for the apps t
// registers from now on.
func SetBodyIdle(t testing.TB, d time.Duration) {
	old := bodyIdle
	bodyIdle = d
	t.Cleanup(func() { bodyIdle = old })
}
