package replica

import (
	"sync"
	"time"

	"github.com/superfly/ltx"
)

// lagTracker measures how far the replica is behind: Litestream numbers
// what it copies out of the WAL with transaction ids (TXIDs), locally first
// and then at the replica, so a local TXID that the replica has not reached
// yet is a change the replica lacks. The tracker remembers when it first saw
// each local TXID; the lag is the age of the oldest one still missing.
type lagTracker struct {
	mu      sync.Mutex
	pending []seen // local TXIDs not at the replica yet, oldest first
	local   ltx.TXID
	remote  ltx.TXID
}

// seen is a local TXID and when the tracker first saw it.
type seen struct {
	txid ltx.TXID
	at   time.Time
}

// newLagTracker starts behind until the replica has what the database held
// at start: the first local TXID seen stands for all of it.
func newLagTracker(start time.Time) *lagTracker {
	return &lagTracker{pending: []seen{{txid: 0, at: start}}}
}

// observe records the local and replica positions at now.
func (t *lagTracker) observe(now time.Time, local, remote ltx.TXID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) > 0 && t.pending[0].txid == 0 {
		if local == 0 {
			return // nothing copied out of the WAL yet
		}
		t.pending[0].txid = local
	}
	if local > t.local {
		if n := len(t.pending); n == 0 || t.pending[n-1].txid < local {
			t.pending = append(t.pending, seen{txid: local, at: now})
		}
	}
	t.local, t.remote = local, remote
	done := 0
	for done < len(t.pending) && t.pending[done].txid <= remote {
		done++
	}
	t.pending = t.pending[done:]
}

// lag returns how long the oldest change the replica lacks has waited, 0
// when it lacks none, and the positions last observed.
func (t *lagTracker) lag(now time.Time) (lag time.Duration, local, remote ltx.TXID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) > 0 {
		lag = now.Sub(t.pending[0].at)
	}
	return lag, t.local, t.remote
}
