package jobs

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/hooks"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// The trust policies' worker (docs/review.md): every second it lets each
// active policy accept its client's qualifying pending revisions, what
// each step reads as one set of decisions (store.DecideChosenSet: every
// decision's rules and effects, decidedBy "policy"); every second (an
// active policy every TrustActiveRefresh), and as soon as a person's
// decision or a closed audit moves the trust counters (for the policies
// not active), it brings every policy's measurement and state up to date.
// It keeps nothing but cursors and times in memory: after a restart it
// reads the pending revisions from the first, so one stored before a
// crash is decided after it.

// Trust pacing: the cron's minute is too coarse for "within 10 seconds".
const (
	TrustTick    = time.Second // how often active policies act
	TrustRefresh = time.Second // how often measurements and states are brought up to date (those not active also at a person's decision: nobody waits on activation)
	// TrustActiveRefresh: how often an active policy is measured, counted
	// from its activation. note: its bound is at the target when it
	// becomes active, and each decision moves it; measured every second,
	// a policy whose vendor sits near the target went back to learning
	// for a moment every few seconds, and each return restarted every
	// version's probation. Audits still suspend it at once.
	TrustActiveRefresh = 10 * time.Second
	// note: what a step reads it accepts in one transaction: under a load of
	// writers, each transaction first waits its turn for SQLite's writer
	trustScan        = 2000  // new pending revisions read per policy and step
	trustSweep       = 200   // older pending revisions read again per policy and tick
	trustFailedLimit = 10000 // revisions remembered as failing, at most
)

// Trust is the trust policies' worker of one app.
type Trust struct {
	app  core.App
	Draw func() float64 // the audit draw in [0, 1); rand.Float64 unless a test sets it

	mu        sync.Mutex
	cursors   map[string]*trustCursor // by policy
	failed    map[string]bool         // revisions whose acceptance failed: left to people
	refreshed time.Time
	measured  map[string]time.Time // by policy: when it was last measured (activeDue)
	stop      chan struct{}
	done      chan struct{}
	wake      chan struct{} // the trust counters moved: act now, not at the next tick
	// remeasure: the clients whose trust counters moved since the last
	// step, whose policies it measures first; a lock of its own, so that
	// a committing request never waits for a step
	remeasureMu sync.Mutex
	remeasure   map[string]bool
}

// trustKey holds, in app.Store(), the app's trust worker.
const trustKey = "enrichmentTrust"

// WakeTrust has app's trust worker, if one runs, measure and act at
// once: a person decided or closed an audit, so a policy may have earned
// its activation (one already active is measured every
// TrustActiveRefresh), and what probation held back for an audit may be
// accepted now rather than a tick later, while the person is at hand.
func WakeTrust(app core.App, clients []string) {
	if t, ok := app.Store().Get(trustKey).(*Trust); ok {
		t.remeasureMu.Lock()
		for _, c := range clients {
			t.remeasure[c] = true
		}
		t.remeasureMu.Unlock()
		select {
		case t.wake <- struct{}{}:
		default: // note: a wake-up is already due
		}
	}
}

// trustCursor is how far a policy has read its client's pending
// revisions: high for the new ones, sweep for a second look at older ones
// (which qualify once a competing proposal is decided).
type trustCursor struct {
	high, sweep int64
	full        bool // the last scan of new revisions read all it could: more are waiting
	// held: revisions were held back by their model version's probation
	// (its audits wait for a person); the sweep goes back to the first of
	// them and reads as much as a scan until a round holds none back, so
	// that they are accepted as soon as the audits close rather than at
	// the sweep's pace
	held, heldThisRound bool
}

// backlog tells whether a policy's last scan left new revisions unread.
func (t *Trust) backlog() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.cursors {
		if c.full || c.held {
			return true
		}
	}
	return false
}

// NewTrust makes app's trust worker, not started; WakeTrust reaches it
// from then on.
func NewTrust(app core.App) *Trust {
	t := &Trust{app: app, Draw: rand.Float64, cursors: map[string]*trustCursor{}, failed: map[string]bool{}, measured: map[string]time.Time{},
		wake: make(chan struct{}, 1), remeasure: map[string]bool{}}
	app.Store().Set(trustKey, t)
	return t
}

// RegisterTrust runs the trust worker while app serves, and stops it when
// app terminates.
func RegisterTrust(app core.App) {
	app.OnServe().BindFunc(func(e *core.ServeEvent) error {
		t := NewTrust(app)
		t.Start()
		app.OnTerminate().BindFunc(func(te *core.TerminateEvent) error {
			t.Stop()
			return te.Next()
		})
		return e.Next()
	})
}

// now is the time on the app's clock.
func (t *Trust) now() time.Time { return clock.Now(t.app) }

// Start runs Step every TrustTick, and at once when WakeTrust says the
// trust counters moved, in a goroutine of its own.
func (t *Trust) Start() {
	t.stop, t.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(t.done)
		tick := time.NewTicker(TrustTick)
		defer tick.Stop()
		for {
			select {
			case <-t.stop:
				return
			case <-t.wake: // note: probation is read afresh by each step, the measurement by this one
			case <-tick.C:
			}
			// note: while a policy finds a full scan of new revisions, the
			// next step follows at once rather than a tick later
			for t.Step() > 0 && t.backlog() {
				select {
				case <-t.stop:
					return
				default:
				}
			}
		}
	}()
}

// Stop ends the goroutine Start began and waits for its step to finish.
func (t *Trust) Stop() {
	if t.stop == nil {
		return
	}
	close(t.stop)
	<-t.done
	t.stop = nil
}

// Step does one round: the states when TrustRefresh has passed (an active
// policy's when TrustActiveRefresh has) or the trust counters moved, then
// every active policy's acceptances. It returns how many revisions it
// accepted; failures are logged.
func (t *Trust) Step() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if now.Sub(t.refreshed) >= TrustRefresh {
		t.refresh(now, nil, false)
		t.refreshed = now
	} else if clients := t.clientsToRemeasure(); len(clients) > 0 {
		t.refresh(now, clients, false)
	}
	policies, err := store.New(t.app).Trust().Policies(true)
	if err != nil {
		t.app.Logger().Error("enrichment: trust policies", "error", err.Error())
		return 0
	}
	accepted := 0
	for _, p := range policies {
		accepted += t.act(p)
	}
	return accepted
}

// Refresh brings every policy's measurement and state up to date now.
func (t *Trust) Refresh() {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	t.refresh(now, nil, true)
	t.refreshed = now
}

// clientsToRemeasure takes the clients whose trust counters moved since it
// was last asked.
func (t *Trust) clientsToRemeasure() map[string]bool {
	t.remeasureMu.Lock()
	defer t.remeasureMu.Unlock()
	clients := t.remeasure
	t.remeasure = map[string]bool{}
	return clients
}

// refresh brings the policies of clients (nil: every policy) up to date:
// an active one's measurement and state only when every is set or, at a
// periodic refresh (clients nil), once TrustActiveRefresh has passed since
// it was last measured or became active; in between a periodic refresh
// brings its probation up to date.
func (t *Trust) refresh(now time.Time, clients map[string]bool, every bool) {
	if clients == nil {
		t.clientsToRemeasure() // note: all are measured now
	}
	records, err := t.app.FindAllRecords(schema.TrustPolicies)
	if err != nil {
		t.app.Logger().Error("enrichment: read trust policies", "error", err.Error())
		return
	}
	for _, rec := range records {
		// note: a wake-up measures the policies a person's decision may
		// make active; an active one is measured every TrustActiveRefresh,
		// so a bound at the target that decisions dip under for a moment
		// does not withdraw it and restart every version's probation
		if clients != nil && !clients[rec.GetString("apiClient")] {
			continue
		}
		measure := every || rec.GetString("state") != enrichment.PolicyActive || (clients == nil && t.activeDue(rec, now))
		if !measure && clients != nil {
			continue
		}
		// note: read again and saved in one transaction, which holds the
		// only writer: an audit's close that suspends the policy meanwhile
		// is never overwritten by a state read before it
		err := t.app.RunInTransaction(func(tx core.App) error {
			fresh, err := tx.FindRecordById(schema.TrustPolicies, rec.Id)
			if err != nil {
				return err
			}
			var changed bool
			if measure {
				changed, err = hooks.RefreshPolicy(tx, fresh, now)
			} else {
				changed, err = hooks.RefreshProbation(tx, fresh)
			}
			if err == nil && changed {
				err = tx.Save(fresh)
			}
			return err
		})
		if err != nil {
			// note: not marked measured, so the next refresh tries again
			t.app.Logger().Error("enrichment: measure trust policy", "policy", rec.Id, "error", err.Error())
		} else if measure {
			t.measured[rec.Id] = now
		}
	}
	if clients == nil {
		t.forgetDeleted(records)
	}
}

// forgetDeleted drops what the worker remembers of policies no longer
// among records (every policy): their measurement times and cursors.
func (t *Trust) forgetDeleted(records []*core.Record) {
	kept := make(map[string]bool, len(records))
	for _, rec := range records {
		kept[rec.Id] = true
	}
	for id := range t.measured {
		if !kept[id] {
			delete(t.measured, id)
		}
	}
	for id := range t.cursors {
		if !kept[id] {
			delete(t.cursors, id)
		}
	}
}

// activeDue tells whether the active policy rec is due to be measured:
// TrustActiveRefresh has passed since it was last measured or became
// active.
func (t *Trust) activeDue(rec *core.Record, now time.Time) bool {
	last := t.measured[rec.Id]
	if activated := rec.GetDateTime("activatedAt").Time(); activated.After(last) {
		last = activated
	}
	return now.Sub(last) >= TrustActiveRefresh
}

// act accepts what p qualifies among its client's new pending revisions
// and a sweep of older ones.
func (t *Trust) act(p store.Policy) int {
	c := t.cursors[p.ID]
	if c == nil {
		c = &trustCursor{}
		t.cursors[p.ID] = c
	}
	st := store.New(t.app)
	ids, last, read, err := st.Trust().Candidates(p, c.high, trustScan)
	if err != nil {
		t.app.Logger().Error("enrichment: trust policy candidates", "policy", p.ID, "error", err.Error())
		return 0
	}
	c.full = read == trustScan
	c.high = last
	if c.sweep < c.high {
		from, size := c.sweep, trustSweep
		if c.held {
			size = trustScan
		}
		older, upTo, _, err := st.Trust().Candidates(p, from, size)
		if err != nil {
			t.app.Logger().Error("enrichment: trust policy candidates", "policy", p.ID, "error", err.Error())
			return 0
		}
		c.sweep = upTo
		if upTo == from || upTo >= c.high { // round done: start again from the first
			c.sweep = 0
			c.held, c.heldThisRound = c.heldThisRound, false
		}
		ids = append(older, ids...)
	}
	var todo []string
	for _, id := range ids {
		if !t.failed[id] && !slices.Contains(todo, id) {
			todo = append(todo, id)
		}
	}
	n, heldFrom := t.accept(p, todo)
	if heldFrom > 0 {
		c.held, c.heldThisRound = true, true
		c.sweep = min(c.sweep, heldFrom-1)
	}
	return n
}

// accept accepts those of ids that p still qualifies, as one set of
// decisions (store.DecideChosenSet), each drawn for audit at p's rate;
// when the set fails, each revision is tried on its own, and one that
// fails or is refused is left to people. It also answers the first
// revision held back by probation (0: none).
func (t *Trust) accept(p store.Policy, ids []string) (n int, heldFrom int64) {
	n, refused, heldFrom, err := t.acceptSet(p, ids)
	if err == nil {
		t.leave(p, refused)
		return n, heldFrom
	}
	t.app.Logger().Warn("enrichment: a trust policy's batch failed; its revisions are tried one by one",
		"policy", p.ID, "revisions", len(ids), "error", err.Error())
	n, heldFrom = 0, 0
	for _, id := range ids {
		one, refused, held, err := t.acceptSet(p, []string{id})
		if err != nil {
			refused = map[string]error{id: err}
		}
		n += one
		if heldFrom == 0 {
			heldFrom = held
		}
		t.leave(p, refused)
	}
	return n, heldFrom
}

// acceptSet accepts, in one transaction, those of ids that p still
// qualifies and the probation of their model versions lets through
// (enrichment.VersionTally.Take, which also draws the audits); it returns
// how many it accepted, why any was refused and the first revision
// probation held back (0: none).
func (t *Trust) acceptSet(p store.Policy, ids []string) (int, map[string]error, int64, error) {
	who := store.SetDecider{Policy: p.ID}
	var heldFrom int64
	outcomes, err := store.New(t.app).Review().DecideChosenSet(p.Org, who, t.now(), func(tx *store.Store) ([]store.SetDecision, error) {
		current, err := tx.Trust().FindPolicy(p.ID)
		if err != nil || !current.Enabled || current.State != enrichment.PolicyActive {
			return nil, err
		}
		qualifying, err := tx.Trust().StillQualifying(current, ids)
		if err != nil || len(qualifying) == 0 {
			return nil, err
		}
		tallies, err := tx.Trust().VersionTallies(current)
		if err != nil {
			return nil, err
		}
		slices.SortFunc(qualifying, func(a, b store.Qualifying) int { // numeric ids in order
			return cmp.Or(cmp.Compare(len(a.ID), len(b.ID)), cmp.Compare(a.ID, b.ID))
		})
		ds := make([]store.SetDecision, 0, len(qualifying))
		for _, q := range qualifying {
			tally := tallies[q.Version]
			if tally == nil {
				tally = &enrichment.VersionTally{}
				tallies[q.Version] = tally
			}
			accept, audit := tally.Take(t.Draw(), current.AuditRate, current.TargetPrecision)
			if accept {
				ds = append(ds, store.SetDecision{Revision: q.ID, Decision: enrichment.Decision{Status: enrichment.StatusAccepted}, Audit: audit})
			} else if heldFrom == 0 {
				heldFrom = sqlparts.StoredID(q.ID) // note: in id order, the first held
			}
		}
		return ds, nil
	})
	if err != nil {
		return 0, nil, 0, err
	}
	n, refused := 0, map[string]error{}
	for _, o := range outcomes {
		if o.Decided() {
			n++
		} else if o.Err != nil {
			refused[o.Revision] = o.Err
		}
	}
	return n, refused, heldFrom, nil
}

// leave remembers the revisions p could not accept, so that they are left
// to people.
func (t *Trust) leave(p store.Policy, refused map[string]error) {
	for id, err := range refused {
		t.app.Logger().Warn("enrichment: a trust policy could not accept a revision; it is left to people",
			"policy", p.ID, "revision", id, "error", err.Error())
		if len(t.failed) < trustFailedLimit {
			t.failed[id] = true
		}
	}
}
