// Package replica replicates the service's database continuously with
// Litestream, the SQLite world's WAL shipping (to a folder or an
// S3-compatible bucket, in pure Go, as a library so the one binary stays
// the whole service), and restores a database from such a replica as it is
// or as it was at a moment.
package replica

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/benbjohnson/litestream/file"
	"github.com/catalog-enrichment/enrichment/dbversion"
)

// URLEnv names the environment variable that turns replication on for
// `serve`: file:///path or s3://bucket/path[?endpoint=…&region=…].
const URLEnv = "ENRICHMENT_REPLICA_URL"

// Window is the promise: a change acknowledged longer ago than this is at
// the replica, unless the replica is reported behind. Litestream looks at
// the WAL every checkInterval and uploads what it found at once.
const Window = time.Second

const (
	checkInterval  = 250 * time.Millisecond // Litestream's look at the WAL (DB.MonitorInterval)
	uploadInterval = 100 * time.Millisecond // the least time between two uploads (Replica.SyncInterval)
	// Litestream publishes what it read from the WAL only after the
	// checkpoint that may follow, which first waits for the write lock. By
	// default it tries at 1000 pages (4 MB), waiting up to 1 s: under the
	// 4-writer submission load the writers hold the lock nearly all the
	// time, so most looks waited the whole second and then gave up; the lag
	// averaged 1.0-1.7 s (max 2-4 s). Trying at 25,000 pages (100 MB) and
	// waiting 100 ms: 0.4-0.65 s on average (max 0.9-1.8 s), on the same
	// noisy 2 cores. A WAL that keeps growing is still checkpointed by force
	// at about 500 MB (Litestream's TruncatePageN). Both are counted in
	// pages, which are 8 KiB in a data.db made since version 4 and 4 KiB in
	// one made before, so they are set from these sizes for the database's.
	checkpointBytes = 25_000 * 4096
	truncateBytes   = litestream.DefaultTruncatePageN * 4096
	lockWait        = 100 * time.Millisecond // Litestream's busy timeout
	observeInterval = 100 * time.Millisecond // the lag tracker's look at both positions
	warnEvery       = time.Minute            // at most one "behind" line this often
	shutdownSync    = 10 * time.Second       // how long a stop retries the last upload
)

// Replicator replicates one database until Close.
type Replicator struct {
	replica  string // the URL as it may be shown
	db       *litestream.DB
	store    *litestream.Store
	versions *dbversion.Watcher // sees the database's commits
	pool     *sql.DB            // the watcher's connection
	lag      *lagTracker
	errs     *lastError
	log      *slog.Logger

	stop      context.CancelFunc
	watching  sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Start replicates the SQLite database at dbPath (in WAL mode) to the
// replica at rawURL. Litestream's own messages go to litestreamLog, the
// replicator's ("behind", "caught up") to log.
func Start(ctx context.Context, dbPath, rawURL string, log, litestreamLog *slog.Logger) (*Replicator, error) {
	client, err := newClient(rawURL)
	if err != nil {
		return nil, err
	}
	errs := &lastError{}
	litestreamLog = slog.New(errorMemory{Handler: litestreamLog.Handler(), last: errs})

	pool, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dbPath, err)
	}
	var pageSize int
	if err := pool.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		pool.Close()
		return nil, fmt.Errorf("read the page size of %s: %w", dbPath, err)
	}
	db := litestream.NewDB(dbPath)
	db.MonitorInterval = checkInterval
	db.MinCheckpointPageN = checkpointBytes / pageSize
	db.TruncatePageN = truncateBytes / pageSize
	db.BusyTimeout = lockWait
	replica := litestream.NewReplicaWithClient(db, client)
	replica.SyncInterval = uploadInterval
	db.Replica = replica
	if c, ok := client.(*file.ReplicaClient); ok {
		c.Replica = replica // new files get the database's owner and mode
	}
	store := litestream.NewStore([]*litestream.DB{db}, litestream.DefaultCompactionLevels)
	store.Logger = litestreamLog
	db.SetLogger(litestreamLog.With(litestream.LogKeyDB, "data.db"))
	db.ShutdownSyncTimeout = shutdownSync
	if err := store.Open(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("start replicating to %s: %w", Describe(rawURL), explain(err))
	}
	r := &Replicator{replica: Describe(rawURL), db: db, store: store, pool: pool,
		versions: dbversion.New(func() *sql.DB { return pool }, dbPath),
		lag:      newLagTracker(time.Now()), errs: errs, log: log}
	watchCtx, stop := context.WithCancel(context.Background())
	r.stop = stop
	r.watching.Add(1)
	go r.watch(watchCtx)
	return r, nil
}

// Replica is the replica's URL as it may be shown.
func (r *Replicator) Replica() string { return r.replica }

// Close uploads what is left (retrying for shutdownSync) and stops.
func (r *Replicator) Close(ctx context.Context) error {
	r.closeOnce.Do(func() {
		r.stop()
		r.watching.Wait()
		// note: Litestream's final upload covers only a database it has
		// looked at; a server stopped within checkInterval of its start has
		// not been looked at yet
		syncErr := r.db.Sync(ctx)
		if err := errors.Join(syncErr, r.store.Close(ctx), r.versions.Close(), r.pool.Close()); err != nil {
			r.closeErr = fmt.Errorf("stop replicating to %s: %w", r.replica, err)
		}
	})
	return r.closeErr
}

// Status is what operators see of the replication (GET /api/replication).
type Status struct {
	Enabled bool   `json:"enabled"`
	Replica string `json:"replica"`
	// LagSeconds is how long the oldest change the replica lacks has
	// waited since it was committed; 0 when it lacks none; the time since
	// the start while the replica is not known to hold anything.
	LagSeconds    float64 `json:"lagSeconds"`
	Behind        bool    `json:"behind"` // LagSeconds over WindowSeconds
	WindowSeconds float64 `json:"windowSeconds"`
	// LocalTXID and ReplicaTXID are Litestream's positions: copied out of
	// the WAL, and at the replica.
	LocalTXID   uint64    `json:"localTxid"`
	ReplicaTXID uint64    `json:"replicaTxid"`
	LastError   string    `json:"lastError,omitzero"` // Litestream's last error, if any since start
	LastErrorAt time.Time `json:"lastErrorAt,omitzero"`
}

// Errors is how many errors Litestream logged since the start.
func (r *Replicator) Errors() uint64 { return r.errs.count() }

// Status returns the replication's state now.
func (r *Replicator) Status() Status {
	lag, local, remote := r.lag.lag(time.Now())
	msg, at := r.errs.get()
	return Status{
		Enabled: true, Replica: r.replica,
		LagSeconds: lag.Seconds(), Behind: lag > Window, WindowSeconds: Window.Seconds(),
		LocalTXID: uint64(local), ReplicaTXID: uint64(remote),
		LastError: msg, LastErrorAt: at,
	}
}
