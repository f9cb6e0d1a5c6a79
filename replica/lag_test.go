package replica

import (
	"testing"
	"time"

	"github.com/superfly/ltx"
)

func TestLagTracker(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tr := newLagTracker(t0)
	steps := []struct {
		ms            int
		changed       bool
		local, remote ltx.TXID
		until         int           // the stamp of the replica's newest file, ms after t0; -1: unknown
		want          time.Duration // lag right after the look
	}{
		{100, false, 0, 0, -1, 100 * time.Millisecond}, // nothing known at the replica: behind since start
		{200, false, 5, 0, -1, 200 * time.Millisecond},
		{300, false, 5, 5, -500, 0},                     // the replica has the database as it was at start
		{400, true, 5, 5, -500, 100 * time.Millisecond}, // a commit after the look at 300
		{500, true, 5, 5, -500, 200 * time.Millisecond}, // another; the first still counts
		{600, false, 6, 5, -500, 300 * time.Millisecond},
		{700, false, 6, 6, 450, 300 * time.Millisecond}, // the replica's newest file read the WAL at 450: it has the first commit only, the second came after 400
		{800, false, 7, 7, 650, 0},                      // and now the second
		{900, false, 7, 7, 650, 0},                      // nothing new: in sync however old the stamp
		{1000, true, 7, 0, 650, 100 * time.Millisecond}, // a failed upload forgets the replica's position: the stamp stays
		{2000, false, 8, 0, -1, 1100 * time.Millisecond},
		{2100, false, 8, 8, 1500, 0},
		{2200, true, 8, 8, 1000, 100 * time.Millisecond}, // an older stamp changes nothing
	}
	for _, s := range steps {
		until := time.Time{}
		if s.until != -1 {
			until = at(s.until)
		}
		tr.observe(at(s.ms), s.changed, s.local, s.remote, until, time.Time{})
		lag, local, remote := tr.lag(at(s.ms))
		if lag != s.want || local != s.local || remote != s.remote {
			t.Errorf("at %d ms: lag %s (local %d, remote %d), want %s", s.ms, lag, local, remote, s.want)
		}
	}
}

// While the replica is out of reach the tracker's memory stays bounded and
// the lag counts from the first change it lacks.
func TestLagTrackerBounded(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tr := newLagTracker(t0)
	tr.observe(t0, false, 1, 1, t0, time.Time{})
	for i := 1; i <= 3*maxPending; i++ {
		tr.observe(t0.Add(time.Duration(i)*100*time.Millisecond), true, 1, 1, t0, time.Time{})
	}
	now := t0.Add(3 * maxPending * 100 * time.Millisecond)
	if lag, _, _ := tr.lag(now); lag != now.Sub(t0) {
		t.Errorf("lag %s, want %s", lag, now.Sub(t0))
	}
	if len(tr.pending) > maxPending {
		t.Errorf("%d changes remembered", len(tr.pending))
	}
	tr.observe(now.Add(100*time.Millisecond), false, 2, 2, now, time.Time{})
	if lag, _, _ := tr.lag(now.Add(100 * time.Millisecond)); lag != 0 {
		t.Errorf("lag %s once the replica has everything", lag)
	}
}

// A change seen after the stamp of the replica's newest file is there all
// the same once a sync that began after it was seen completed and the
// replica reached the position it published: a commit just before
// Litestream read the WAL, seen just after.
func TestLagTrackerSyncedAfterSeen(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tr := newLagTracker(t0)
	tr.observe(at(100), false, 3, 3, at(50), time.Time{})
	tr.observe(at(200), true, 3, 3, at(50), time.Time{}) // committed after 100, seen at 200
	tr.observe(at(300), false, 4, 3, at(50), at(150))    // a sync that began before it was seen: no help
	tr.observe(at(400), false, 4, 4, at(190), at(250))   // a sync that began after: position 4 holds it
	if lag, _, _ := tr.lag(at(400)); lag != 0 {
		t.Errorf("lag %s, want 0: the replica reached position 4", lag)
	}
	tr.observe(at(500), true, 4, 4, at(190), at(250))  // a new commit, seen at 500
	tr.observe(at(600), false, 5, 4, at(190), at(550)) // synced into position 5, not uploaded yet
	if lag, _, _ := tr.lag(at(600)); lag != 200*time.Millisecond {
		t.Errorf("lag %s, want 200ms: position 5 is not at the replica", lag)
	}
}
