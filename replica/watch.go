package replica

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/superfly/ltx"
)

// watch looks at the database and at Litestream's positions every
// observeInterval, and says, at most once a minute, that the replica is
// behind, and once that it caught up.
func (r *Replicator) watch(ctx context.Context) {
	defer r.watching.Done()
	tick := time.NewTicker(observeInterval)
	defer tick.Stop()
	previous, err := r.versions.Version(ctx)
	known := err == nil
	stamps := stampCache{}
	var warned time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			version, err := r.versions.Version(ctx)
			// note: a version that cannot be read counts as a change
			changed := err != nil || !known || version != previous
			previous, known = version, err == nil
			local, err := r.db.Pos()
			if err != nil {
				local.TXID = 0
			}
			remote := r.db.Replica.Pos().TXID
			r.lag.observe(now, changed, local.TXID, remote, stamps.of(r.db.LTXLevelDir(0), remote), r.lastSync())

			s := r.Status()
			switch {
			case s.Behind && now.Sub(warned) >= warnEvery:
				r.log.Warn(fmt.Sprintf("replication behind: the replica at %s lacks changes of the last %.1f s", r.replica, s.LagSeconds),
					"lagSeconds", s.LagSeconds, "localTxid", s.LocalTXID, "replicaTxid", s.ReplicaTXID, "lastError", s.LastError)
				warned = now
			case !s.Behind && !warned.IsZero():
				r.log.Info("replication caught up: the replica at " + r.replica + " has every change older than " + Window.String())
				warned = time.Time{}
			}
		}
	}
}

// lastSync returns when the last sync of the WAL that completed without an
// error began; zero while one runs or after an error.
func (r *Replicator) lastSync() time.Time {
	d := r.db.SyncDiagnostic()
	if d.Operation != "sync" || d.Active || d.Error != "" || d.StartedAt == nil {
		return time.Time{}
	}
	return *d.StartedAt
}

// stampCache remembers the stamp of the last Litestream file looked up.
type stampCache struct {
	txid  ltx.TXID
	stamp time.Time
}

// of returns the moment Litestream read the WAL for the local file (in
// dir, its level-0 folder) that ends at txid; zero when there is none.
func (c *stampCache) of(dir string, txid ltx.TXID) time.Time {
	if txid == 0 {
		return time.Time{}
	}
	if txid != c.txid {
		if stamp, err := fileStamp(dir, txid); err == nil {
			c.txid, c.stamp = txid, stamp
		}
	}
	if txid != c.txid {
		return time.Time{}
	}
	return c.stamp
}

// fileStamp reads the header timestamp of the file in dir that ends at txid.
func fileStamp(dir string, txid ltx.TXID) (time.Time, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return time.Time{}, err
	}
	suffix := "-" + txid.String() + ".ltx"
	for i := len(entries) - 1; i >= 0; i-- {
		if name := entries[i].Name(); strings.HasSuffix(name, suffix) {
			f, err := os.Open(dir + string(os.PathSeparator) + name)
			if err != nil {
				return time.Time{}, err
			}
			defer f.Close()
			dec := ltx.NewDecoder(f)
			if err := dec.DecodeHeader(); err != nil {
				return time.Time{}, err
			}
			return time.UnixMilli(dec.Header().Timestamp), nil
		}
	}
	return time.Time{}, fmt.Errorf("no file ends at %s in %s", txid, dir)
}
