package clock_test

import (
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/pocketbase/pocketbase/tests"
)

// An app reads the machine's time until a clock is set, then that clock's.
func TestSetClock(t *testing.T) {
	app, err := tests.NewTestApp()
	if err != nil {
		t.Fatal(err)
	}
	defer app.Cleanup()
	before := time.Now()
	if now := clock.Now(app); now.Before(before) || now.After(time.Now()) {
		t.Fatalf("an app without a clock set read %v, not the machine's time", now)
	}
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clock.Set(app, func() time.Time { return at })
	if now := clock.Now(app); !now.Equal(at) {
		t.Fatalf("an app with its clock set read %v, want %v", now, at)
	}
	if now := clock.Of(app)(); !now.Equal(at) {
		t.Fatalf("Of read %v, want %v", now, at)
	}
}
