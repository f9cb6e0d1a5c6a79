// Package checkpoint keeps data.db's write-ahead log short without the
// writers' help. SQLite's own rule (wal_autocheckpoint) has the connection
// whose commit passes 1000 pages copy the log into the database before its
// commit returns: a large submission or an import then waits for a
// checkpoint of everything before it. The service turns that rule off
// (service/db.go) and, in `serve`, runs this checkpointer beside the
// writers instead: a PASSIVE checkpoint a few times a second while anything
// was committed since the last (dbversion/), which copies what no reader
// still needs and never waits for anyone, and, when readers kept the log
// from being reused until it passed a bound, a TRUNCATE one, which waits
// for the readers of the moment (holding new writers meanwhile) and empties
// the file. While Litestream replicates data.db it checkpoints
// the database itself, after it copied the log (replica/), and this one
// does not run.
package checkpoint

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/catalog-enrichment/enrichment/dbversion"
	"github.com/pocketbase/dbx"
)

// Defaults of Options.
const (
	// Interval between passive checkpoints: a commit's pages wait at most
	// this long before they start going into the database file.
	Interval = 250 * time.Millisecond
	// Bound is the log's size past which a checkpoint empties it. Above
	// journal_size_limit (200 MB, service/db.go), the size an emptied log is
	// cut back to, so that a log that reached the limit once is not emptied
	// again and again; Litestream truncates its own at about 500 MB.
	Bound = 512 << 20
)

// Options are the checkpointer's settings; zero values take the defaults.
type Options struct {
	Interval time.Duration
	Bound    int64
	// OnError is told of a checkpoint that failed (the next tick tries again).
	OnError func(mode string, err error)
}

// Stats are the checkpoints run so far (none runs while nothing was
// committed since one that copied the whole WAL).
type Stats struct {
	Passive, Truncate int           // checkpoints run, by mode
	Time              time.Duration // their time in all
}

// Checkpointer checkpoints one database on a schedule of its own.
type Checkpointer struct {
	db      *dbx.DB
	walPath string
	opts    Options
	stop    context.CancelFunc
	done    chan struct{}

	versions *dbversion.Watcher

	mu    sync.Mutex
	stats Stats
	// the database's version at the last checkpoint, and whether that one
	// copied the whole WAL: while both hold, there is nothing to do
	lastVersion dbversion.Version
	complete    bool
}

// Start checkpoints the database db at dbPath (its log is dbPath-wal) until
// Stop. db should be a pool of readers (PocketBase's concurrent one): a
// passive checkpoint takes no writer's lock.
func Start(db *dbx.DB, dbPath string, opts Options) *Checkpointer {
	if opts.Interval <= 0 {
		opts.Interval = Interval
	}
	if opts.Bound <= 0 {
		opts.Bound = Bound
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Checkpointer{db: db, walPath: dbPath + "-wal", opts: opts, stop: cancel, done: make(chan struct{}),
		versions: dbversion.New(func() *sql.DB { return db.DB() }, dbPath)}
	go c.run(ctx)
	return c
}

// Stop ends the checkpointer once its current checkpoint is over.
func (c *Checkpointer) Stop() {
	c.stop()
	<-c.done
}

// Stats are the checkpoints run so far.
func (c *Checkpointer) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

func (c *Checkpointer) run(ctx context.Context) {
	defer close(c.done)
	defer c.versions.Close()
	tick := time.NewTicker(c.opts.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		mode := "PASSIVE"
		if fi, err := os.Stat(c.walPath); err == nil && fi.Size() > c.opts.Bound {
			mode = "TRUNCATE"
		}
		// note: nothing committed since a checkpoint that copied the whole WAL
		// leaves nothing to copy (a checkpoint does not move the version), nor
		// does an empty WAL (a writer starting it over, between its new header
		// and its commit, moves the version once more)
		version, err := c.versions.Version(ctx)
		if mode == "PASSIVE" && err == nil && c.caughtUp(version) {
			continue
		}
		complete, err := c.checkpoint(ctx, mode)
		if err != nil && ctx.Err() == nil && c.opts.OnError != nil {
			c.opts.OnError(mode, err)
		}
		c.mu.Lock()
		c.lastVersion, c.complete = version, complete
		c.mu.Unlock()
	}
}

// caughtUp tells whether the database at version leaves nothing to copy:
// its log is empty, or the last checkpoint copied all of it and nothing
// was committed since.
func (c *Checkpointer) caughtUp(version dbversion.Version) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return version.EmptyLog() || c.complete && version == c.lastVersion
}

// Checkpoint runs one checkpoint of mode (PASSIVE or TRUNCATE) now.
func (c *Checkpointer) Checkpoint(ctx context.Context, mode string) error {
	_, err := c.checkpoint(ctx, mode)
	return err
}

// checkpoint runs one and says whether it copied the whole WAL.
func (c *Checkpointer) checkpoint(ctx context.Context, mode string) (complete bool, err error) {
	if mode != "PASSIVE" && mode != "TRUNCATE" {
		return false, fmt.Errorf("checkpoint mode %q: want PASSIVE or TRUNCATE", mode)
	}
	start := time.Now()
	// note: busy is 1 when a TRUNCATE could not wait out the readers or a
	// writer within busy_timeout (or another checkpoint ran); log and done
	// are the log's frames and those in the database
	var busy, log, done int64
	if err := c.db.NewQuery("PRAGMA wal_checkpoint("+mode+")").WithContext(ctx).Row(&busy, &log, &done); err != nil {
		return false, fmt.Errorf("%s checkpoint: %w", mode, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if mode == "TRUNCATE" {
		c.stats.Truncate++
	} else {
		c.stats.Passive++
	}
	c.stats.Time += time.Since(start)
	if busy != 0 && mode == "TRUNCATE" {
		return false, fmt.Errorf("TRUNCATE checkpoint: readers or a writer held the log for the whole busy timeout (%d of %d frames copied)", done, log)
	}
	return busy == 0 && done == log, nil
}
