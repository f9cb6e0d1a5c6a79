// Package wiring binds the service's parts to a PocketBase app: the one
// place that says what the service is made of. The binary (service.New) and
// the tests (internal/fixture) both call Bind, so a test app is the service
// as it runs, but for what Options leaves out.
package wiring

import (
	"io"
	"io/fs"

	"github.com/catalog-enrichment/enrichment/checkpoint"
	"github.com/catalog-enrichment/enrichment/hooks"
	"github.com/catalog-enrichment/enrichment/jobs"
	_ "github.com/catalog-enrichment/enrichment/migrations" // the schema
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"github.com/catalog-enrichment/enrichment/replica"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/catalog-enrichment/enrichment/webhooks"
	"github.com/pocketbase/pocketbase/core"
)

// Options are what differs between the binary and a test app.
type Options struct {
	// Pages are served at / (pb_public, or a stand-in in tests).
	Pages fs.FS
	// ReplicaURL, when set, replicates data.db there while the app serves.
	ReplicaURL string
	// Out receives the server's own messages (replication); nil discards them.
	Out io.Writer
	// Deliver runs the webhook dispatcher while the app serves. The binary
	// always does; tests that check what is queued leave it off, since a
	// dispatcher would race them to the outbox (the e2e tests deliver
	// through the real binary).
	Deliver bool
	// Trust runs the trust policies' worker while the app serves (the
	// binary always does); tests step it themselves (jobs.Trust).
	Trust bool
	// Checkpoint takes data.db's checkpoints off the writers' path: the
	// background checkpointer while the app serves without replicating
	// (Litestream checkpoints while it replicates), and the log synced at
	// close, where SQLite no longer checkpoints (the binary's connections,
	// service/db.go). Tests' apps keep SQLite's own checkpoints.
	Checkpoint bool
	// Completeness records the organizations' completeness of the day as the
	// app starts serving, in the background (the binary always does; a test
	// app's cleanup would race it).
	Completeness bool
	// Metrics says who may scrape GET /metrics (opsmetrics.ConfigFromEnv in
	// the binary; zero: superusers only, no second listener).
	Metrics opsmetrics.Config
}

// Bind registers the step after each commit, the hooks, routes, jobs,
// pages, operators' metrics and replication on app, the webhook dispatcher
// when o.Deliver, the trust worker when o.Trust, the checkpoints when
// o.Checkpoint and the completeness of the day at start when o.Completeness.
func Bind(app core.App, o Options) {
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	// what a committed write tells the world: realtime subscribers hear of
	// the revisions written with SQL, the webhook dispatcher of its outbox
	store.OnCommitted(app, func(c store.Committed) {
		store.Announce(app, c.Created, c.Updated)
		if c.Outbox {
			webhooks.Notify(app)
		}
		if len(c.Counted) > 0 {
			jobs.WakeTrust(app, c.Counted)
		}
	})
	hooks.Register(app)
	routes.Register(app)
	jobs.Register(app)
	if o.Deliver {
		webhooks.Register(app)
	}
	if o.Trust {
		jobs.RegisterTrust(app)
	}
	if o.Checkpoint {
		checkpoint.Register(app, o.ReplicaURL != "")
	}
	if o.Completeness {
		jobs.RecordCompletenessAtStart(app)
	}
	opsmetrics.Register(app, o.Metrics)
	routes.RegisterPublic(app, o.Pages)
	replica.Register(app, o.ReplicaURL, out)
}
