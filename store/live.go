package store

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
)

// PocketBase's realtime API follows model events only, and the service
// writes revisions with plain SQL (a submission's batch, supersession,
// expiry), which fires none. So after such a write commits, the store
// announces the revisions it created and changed: it loads them and
// triggers the model events that PocketBase's realtime broadcaster listens
// to, which sends each subscriber what the collection's rules let it see.
// The work is done by one goroutine per app, after the response, and
// coalesced: whatever was announced while it worked is loaded and sent in
// one go; nothing is loaded while nobody subscribes to revisions.

// liveKey holds an app's announcer in its store.
const liveKey = "enrichmentLiveRevisions"

// liveChunk is how many revisions are loaded per query.
const liveChunk = 500

// announcer sends the revisions announced to it to realtime subscribers,
// in the order announced.
type announcer struct {
	app core.App

	mu               sync.Mutex
	created, updated []string
	running          bool
}

// announceRevisions reports revisions created and updated with SQL to the
// step after commit (store/committed.go). Call it after the write
// committed; inside a transaction it reports nothing: the caller's record
// save (a hook's) announces its revision itself.
func (s *base) announceRevisions(created, updated []int64) {
	if s.app.IsTransactional() {
		return
	}
	s.committed(Committed{Created: created, Updated: updated})
}

// Announce sends revisions created and updated with SQL to app's realtime
// subscribers, after the response, in the order announced; the step after
// commit calls it (service/wiring).
func Announce(app core.App, created, updated []int64) {
	if len(created)+len(updated) == 0 {
		return
	}
	announcerOf(app).add(created, updated)
}

func announcerOf(app core.App) *announcer {
	return app.Store().GetOrSet(liveKey, func() any { return &announcer{app: app} }).(*announcer)
}

// add queues ids and starts the goroutine unless it runs.
func (a *announcer) add(created, updated []int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range created {
		a.created = append(a.created, FormatID(id))
	}
	for _, id := range updated {
		a.updated = append(a.updated, FormatID(id))
	}
	if !a.running {
		a.running = true
		go a.run()
	}
}

// liveDelay is how long the announcer waits before it loads what was
// announced: the submission that announced it is still answering its
// client, and whatever else is announced meanwhile joins the same load.
const liveDelay = 50 * time.Millisecond

// run sends what is queued until nothing is, then ends.
func (a *announcer) run() {
	for {
		time.Sleep(liveDelay)
		a.mu.Lock()
		created, updated := a.created, a.updated
		a.created, a.updated = nil, nil
		if len(created)+len(updated) == 0 {
			a.running = false
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
		a.send(created, updated)
	}
}

// send loads the revisions and triggers their model events, creates first.
func (a *announcer) send(created, updated []string) {
	if !subscribedToRevisions(a.app) {
		return
	}
	// note: a revision created and changed in the same window gets both:
	// its create (which carries its state now) and then its update, so that
	// every change of state is an update for the subscribers
	updated = slices.Compact(slices.SortedFunc(slices.Values(updated), byNumericID))
	for _, batch := range []struct {
		ids  []string
		kind string
		hook func(*core.ModelEvent) error
	}{
		{created, core.ModelEventTypeCreate, func(e *core.ModelEvent) error { return a.app.OnModelAfterCreateSuccess().Trigger(e) }},
		{updated, core.ModelEventTypeUpdate, func(e *core.ModelEvent) error { return a.app.OnModelAfterUpdateSuccess().Trigger(e) }},
	} {
		for chunk := range slices.Chunk(batch.ids, liveChunk) {
			records, err := a.app.FindRecordsByIds(schema.Revisions, chunk)
			if err != nil {
				a.app.Logger().Warn("Could not load revisions for realtime subscribers", "error", err.Error())
				continue
			}
			// note: in the order announced (the query's is by text: 10 before 9)
			sortInOrder(records, chunk, func(r *core.Record) string { return r.Id })
			for _, r := range records {
				e := &core.ModelEvent{App: a.app, Context: context.Background(), Type: batch.kind}
				e.Model = r
				if err := batch.hook(e); err != nil {
					a.app.Logger().Warn("Could not announce a revision to realtime subscribers",
						"id", r.Id, "action", batch.kind, "error", err.Error())
				}
			}
		}
	}
}

// byNumericID orders record ids as numbers.
func byNumericID(a, b string) int {
	return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
}

// subscribedToRevisions reports whether any realtime client subscribes to
// a topic of the revisions collection.
func subscribedToRevisions(app core.App) bool {
	c, err := app.FindCachedCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return false
	}
	for _, client := range app.SubscriptionsBroker().Clients() {
		if len(client.Subscriptions(c.Name, c.Id)) > 0 {
			return true
		}
	}
	return false
}
