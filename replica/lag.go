package replica

import (
	"sync"
	"time"

	"github.com/superfly/ltx"
)

// lagTracker measures how long the oldest change the replica lacks has been
// waiting. It sees every commit, of any process, as a change of the
// database's WAL-index header (dbversion), looked at every
// observeInterval. A change is at the replica once the replica's newest
// file was made from the WAL after the change was seen (Litestream stamps
// each file with the moment it read the WAL), or once the replica reaches
// the position Litestream published after a sync that began after the
// change was seen. The measure errs long by up to two looks.
type lagTracker struct {
	mu      sync.Mutex
	start   time.Time
	last    time.Time // the last look
	pending []change  // changes the replica may lack, oldest first
	until   time.Time // the replica has every change seen up to this moment; zero: nothing known at the replica
	local   ltx.TXID
	remote  ltx.TXID
}

// change is a commit made after after and seen at seen; need, once known,
// is the position that holds it.
type change struct {
	after, seen time.Time
	need        ltx.TXID
}

// maxPending bounds the tracker's memory while the replica is unreachable:
// past it, new changes extend the last one (which then resolves later).
const maxPending = 1000

func newLagTracker(start time.Time) *lagTracker {
	return &lagTracker{start: start, last: start}
}

// observe records a look at now: whether the database changed since the
// last look, Litestream's local and replica positions, the stamp of the
// replica's newest file (zero when unknown), and when the last sync that
// completed without an error began (zero when unknown).
func (t *lagTracker) observe(now time.Time, changed bool, local, remote ltx.TXID, until, synced time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if changed {
		if n := len(t.pending); n >= maxPending {
			t.pending[n-1].seen, t.pending[n-1].need = now, 0
		} else {
			t.pending = append(t.pending, change{after: t.last, seen: now})
		}
	}
	t.last, t.local, t.remote = now, local, remote
	if until.After(t.until) {
		t.until = until
	}
	for i := range t.pending {
		if c := &t.pending[i]; c.need == 0 && local > 0 && c.seen.Before(synced) {
			c.need = local
		}
	}
	done := 0
	for done < len(t.pending) {
		c := t.pending[done]
		if c.seen.After(t.until) && (c.need == 0 || remote < c.need) {
			break
		}
		done++
	}
	t.pending = t.pending[done:]
}

// lag returns how long the oldest change the replica lacks has waited (the
// time since start while the replica is not known to hold anything), 0 when
// it lacks none, and the positions last seen.
func (t *lagTracker) lag(now time.Time) (lag time.Duration, local, remote ltx.TXID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.until.IsZero():
		lag = now.Sub(t.start)
	case len(t.pending) > 0:
		lag = now.Sub(t.pending[0].after)
	}
	return lag, t.local, t.remote
}
