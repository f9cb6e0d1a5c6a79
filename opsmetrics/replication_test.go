package opsmetrics_test

import (
	"io"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/checkpoint"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"github.com/catalog-enrichment/enrichment/replica"
	"github.com/pocketbase/pocketbase/tests"
)

// Without replication there are no replication series; with a replica that
// cannot be reached, the lag grows and the errors count.
func TestReplicationSeries(t *testing.T) {
	plain := newWorld(t, opsmetrics.Config{})
	if _, ok := plain.lookup("enrichment_replication_lag_seconds"); ok {
		t.Error("a replication lag without replication")
	}

	app, err := tests.NewTestApp(fixture.Get(t).Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Cleanup)
	t.Setenv("AWS_CA_BUNDLE", "") // Litestream's S3 client refuses to start with one set
	t.Setenv("AWS_ACCESS_KEY_ID", "metrics-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "metrics-test")
	// note: nothing listens on port 1: every upload fails
	replica.Register(app, "s3://bucket/data?endpoint=http://127.0.0.1:1&region=us-east-1", io.Discard)
	opsmetrics.Register(app, opsmetrics.Config{})
	fixture.Serve(t, app)
	w := &world{t: t, app: app}
	errorsSeen := func() float64 { return w.value("enrichment_replication_errors_total") }
	deadline := time.Now().Add(20 * time.Second)
	for errorsSeen() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // note: waits for Litestream's first failed upload
	}
	if errorsSeen() == 0 {
		t.Fatal("no replication error counted while the replica is unreachable")
	}
	first := w.value("enrichment_replication_lag_seconds")
	time.Sleep(50 * time.Millisecond) // note: the lag is measured in wall time
	if later := w.value("enrichment_replication_lag_seconds"); first <= 0 || later <= first {
		t.Errorf("lag %v then %v: it should grow while the replica lacks everything", first, later)
	}
	w.value("enrichment_db_checkpoints_total")
	w.value("enrichment_db_checkpoint_seconds_total")
}

// Without replication, the background checkpointer's checkpoints of
// data.db are counted: a write is checkpointed within moments.
func TestCheckpointSeries(t *testing.T) {
	app, err := tests.NewTestApp(fixture.Get(t).Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Cleanup)
	checkpoint.Register(app, false)
	opsmetrics.Register(app, opsmetrics.Config{})
	fixture.Serve(t, app)
	w := &world{t: t, app: app}
	if _, err := app.DB().NewQuery("UPDATE products SET name = name || ' ' WHERE sku = 'SKU-1'").Execute(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for w.value("enrichment_db_checkpoints_total") == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := w.value("enrichment_db_checkpoints_total"); n == 0 {
		t.Error("no checkpoint counted while the checkpointer runs")
	}
	if s := w.value("enrichment_db_checkpoint_seconds_total"); s < 0 {
		t.Errorf("checkpoint time %v", s)
	}
}
