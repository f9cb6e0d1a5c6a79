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
		local, remote ltx.TXID
		want          time.Duration // lag right after the observation
	}{
		{100, 0, 0, 100 * time.Millisecond},  // nothing copied out of the WAL yet: behind since start
		{200, 5, 0, 200 * time.Millisecond},  // what the database held at start stands at TXID 5
		{300, 5, 4, 300 * time.Millisecond},  // the replica is not there yet
		{400, 5, 5, 0},                       // now it is
		{500, 6, 5, 0},                       // a new change, seen now
		{900, 7, 5, 400 * time.Millisecond},  // the oldest missing one is 6, seen at 500
		{1000, 7, 6, 100 * time.Millisecond}, // 6 arrived; 7 was seen at 900
		{1100, 7, 7, 0},                      // all there
		{1200, 8, 0, 0},                      // a failed upload forgets the replica's position: 8 just seen
		{2200, 8, 0, time.Second},            // still unknown
		{2300, 8, 8, 0},                      // known again
		{2400, 3, 8, 0},                      // the local state was reset below the replica
		{2500, 9, 8, 0},                      // and goes on
		{2600, 9, 9, 0},
	}
	for _, s := range steps {
		tr.observe(at(s.ms), s.local, s.remote)
		lag, local, remote := tr.lag(at(s.ms))
		if lag != s.want || local != s.local || remote != s.remote {
			t.Errorf("at %d ms after local %d, remote %d: lag %s (local %d, remote %d), want %s",
				s.ms, s.local, s.remote, lag, local, remote, s.want)
		}
	}
}
