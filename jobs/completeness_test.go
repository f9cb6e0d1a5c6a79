package jobs_test

import (
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/jobs"
)

// TestCompletenessRecordedAtStart: as the server starts, each organization
// gets its row of the day in the completeness history, not only at the
// hourly job, and the start does not wait for it.
func TestCompletenessRecordedAtStart(t *testing.T) {
	app := fixture.Get(t).NewApp(t)
	t.Cleanup(app.Cleanup)
	jobs.RecordCompletenessAtStart(app)
	fixture.Serve(t, app)
	var rows int
	for deadline := clock.Wall().Add(10 * time.Second); clock.Wall().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := app.DB().NewQuery(`SELECT COUNT(*) FROM _enrichment_completeness_history`).Row(&rows); err != nil {
			t.Fatal(err)
		}
		if rows == 2 {
			return
		}
	}
	t.Errorf("%d rows after the server started, want A's and B's of the day", rows)
}
