package replica

import (
	"testing"

	"github.com/pocketbase/pocketbase/tests"
)

// PocketBase's nightly job is found by its id, so that replication can take
// its TRUNCATE checkpoint of data.db out: a PocketBase that renames the job
// fails here rather than holding the writers 10 s every night.
func TestReplaceNightlyCheckpoint(t *testing.T) {
	app := bareApp(t)
	before := len(app.Cron().Jobs())
	if !replaceNightlyCheckpoint(app) {
		t.Fatalf("PocketBase has no job %s", nightlyJob)
	}
	jobs := app.Cron().Jobs()
	if len(jobs) != before {
		t.Errorf("%d jobs after the replacement, %d before", len(jobs), before)
	}
	for _, j := range jobs {
		if j.Id() == nightlyJob {
			if j.Expression() != "0 0 * * *" {
				t.Errorf("the replaced job runs at %q, want PocketBase's midnight", j.Expression())
			}
			j.Run() // runs on a real test app without a panic
		}
	}
}

// bareApp is PocketBase's own test app, cleaned up with t, without the
// service that fixture.Empty binds: these tests look at PocketBase's logger
// and cron jobs as the replication finds them.
func bareApp(t *testing.T) *tests.TestApp {
	t.Helper()
	app, err := tests.NewTestApp(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Cleanup)
	return app
}
