package routes

import (
	"testing"
	"time"
)

// SetBodyIdle shortens the time a body may send nothing, for the apps t
// registers from now on.
func SetBodyIdle(t testing.TB, d time.Duration) {
	old := bodyIdle
	bodyIdle = d
	t.Cleanup(func() { bodyIdle = old })
}
