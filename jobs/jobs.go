// Package jobs runs the service's periodic work on PocketBase's cron: work
// that no request triggers, such as expiring proposals that waited too long.
package jobs

import (
	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// ExpireProposalsJob is the cron id of the job that expires overdue proposals.
const ExpireProposalsJob = "enrichmentExpireProposals"

// Register schedules every job of the service on app's cron (which runs
// while the server serves). note: the replica package also replaces
// PocketBase's own nightly job while it replicates (replica/serve.go): that
// job is PocketBase's, changed only under replication.
func Register(app core.App) {
	// note: every ten minutes, so a revision expires at most ten minutes
	// late; a reviewer's attempt on an overdue one expires it at once
	app.Cron().MustAdd(ExpireProposalsJob, "*/10 * * * *", func() { ExpireProposals(app) })
	app.Cron().MustAdd("enrichmentPurgeChanges", "43 3 * * *", func() { PurgeChanges(app) })
	app.Cron().MustAdd("enrichmentIdempotencyPurge", "17 3 * * *", func() { PurgeIdempotencyKeys(app) })
	// note: hourly, so each day's row is at most an hour older than its end
	// (and as the server starts: RecordCompletenessAtStart)
	app.Cron().MustAdd(CompletenessJob, "53 * * * *", func() { RecordCompleteness(app) })
}

// RecordCompletenessAtStart records every organization's completeness of
// the day as app starts serving, so that a day on which the server ran for
// less than an hour still has its row. note: in the background, as at 1M
// products it reads for a second (warm) to several (cold), which the
// server's first answers need not wait for.
func RecordCompletenessAtStart(app core.App) {
	app.OnServe().BindFunc(func(e *core.ServeEvent) error {
		go RecordCompleteness(e.App)
		return e.Next()
	})
}

// CompletenessJob is the cron id of the job that keeps the organizations'
// completeness of the day.
const CompletenessJob = "enrichmentCompleteness"

// RecordCompleteness writes every organization's completeness of the day.
func RecordCompleteness(app core.App) {
	if _, err := store.New(app).Catalog().RecordCompleteness(clock.Now(app)); err != nil {
		app.Logger().Error("enrichment: record the completeness of the day", "error", err.Error())
	}
}

// PurgeIdempotencyKeys forgets the externalSubmissionIds answered longer ago
// than their retention.
func PurgeIdempotencyKeys(app core.App) {
	n, err := store.New(app).Proposals().PurgeIdempotent(clock.Now(app).Add(-store.IdempotencyRetention))
	if err != nil {
		app.Logger().Error("enrichment: purge idempotency keys", "error", err.Error())
		return
	}
	if n > 0 {
		app.Logger().Info("enrichment: purged idempotency keys", "count", n)
	}
}

// PurgeChanges forgets the change feed's entries older than its retention.
func PurgeChanges(app core.App) {
	n, err := store.New(app).Catalog().PurgeChanges(clock.Now(app).Add(-store.ChangesRetention))
	if err != nil {
		app.Logger().Error("enrichment: purge the change feed", "error", err.Error())
		return
	}
	if n > 0 {
		app.Logger().Info("enrichment: purged the change feed", "count", n)
	}
}

// ExpireProposals expires the pending revisions that waited longer than
// their organization allows, and logs how many.
func ExpireProposals(app core.App) {
	n, err := store.New(app).Proposals().ExpireOverdue(clock.Now(app))
	if err != nil {
		app.Logger().Error("enrichment: expire proposals", "error", err.Error(), "expired", n)
		return
	}
	if n > 0 {
		app.Logger().Info("enrichment: expired proposals", "count", n)
	}
}
