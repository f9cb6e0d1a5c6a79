// Package checkpoint keeps data.db's write-ahead log short without the
// writers' help. SQLite's own rule (wal_autocheckpoint) has the connection
// whose commit passes 1000 pages copy the log into the database before its
// commit returns: a large submission or an import then waits for a
// checkpoint of everything before it. The service turns that rule off
// (service/db.go) and, in `serve`, runs this checkpointer beside the
// writers instead: a PASSIVE checkpoint a few times a second, which copies
// what no reader still needs and never waits for anyone, and, when readers
// kept the log from being reused until it passed a bound, a TRUNCATE one,
// which waits for the readers of the moment (holding new writers meanwhile)
// and empties the file. While Litestream replicates data.db it checkpoints
// the database itself, after it copied the log (replica/), and this one
// does not run.
package checkpoint

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

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

// Stats are the checkpoints run so far.
type Stats struct {
	Passive, Truncate int           // checkpoints run, by mode
	Time              time.Duration // their time in all
}

// Checkpointer checkpoints one database on a schedule of its own.
type Checkpointer struct {
	db      dbx.Builder
	walPath string
	opts    Options
	stop    context.CancelFunc
	done    chan struct{}

	mu    sync.Mutex
	stats Stats
}

// Start checkpoints the database db at dbPath (its log is dbPath-wal) until
// Stop. db should be a pool of its own readers (PocketBase's concurrent one):
// a passive checkpoint takes no writer's lock.
func Start(db dbx.Builder, dbPath string, opts Options) *Checkpointer {
	if opts.Interval <= 0 {
		opts.Interval = Interval
	}
	if opts.Bound <= 0 {
		opts.Bound = Bound
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Checkpointer{db: db, walPath: dbPath + "-wal", opts: opts, stop: cancel, done: make(chan struct{})}
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
		if err := c.Checkpoint(ctx, mode); err != nil && ctx.Err() == nil && c.opts.OnError != nil {
			c.opts.OnError(mode, err)
		}
	}
}

// Checkpoint runs one checkpoint of mode (PASSIVE or TRUNCATE) now.
func (c *Checkpointer) Checkpoint(ctx context.Context, mode string) error {
	if mode != "PASSIVE" && mode != "TRUNCATE" {
		return fmt.Errorf("checkpoint mode %q: want PASSIVE or TRUNCATE", mode)
	}
	start := time.Now()
	// note: busy is 1 when a TRUNCATE could not wait out the readers or a
	// writer within busy_timeout (or another checkpoint ran); log and done
	// are the log's frames and those in the database
	var busy, log, done int64
	if err := c.db.NewQuery("PRAGMA wal_checkpoint("+mode+")").WithContext(ctx).Row(&busy, &log, &done); err != nil {
		return fmt.Errorf("%s checkpoint: %w", mode, err)
	}
	took := time.Since(start)
	c.mu.Lock()
	defer c.mu.Unlock()
	if mode == "TRUNCATE" {
		c.stats.Truncate++
	} else {
		c.stats.Passive++
	}
	c.stats.Time += took
	if busy != 0 && mode == "TRUNCATE" {
		return fmt.Errorf("TRUNCATE checkpoint: readers or a writer held the log for the whole busy timeout (%d of %d frames copied)", done, log)
	}
	return nil
}
