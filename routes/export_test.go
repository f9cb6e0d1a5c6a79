package routes

import (
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// SetClock makes app's key middleware read time from now (tests only).
func SetClock(app core.App, now func() time.Time) {
	app.Store().Set(clockKey, now)
}
