package replica

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/benbjohnson/litestream"
)

// ErrNoBackup means the replica holds nothing to restore.
var ErrNoBackup = errors.New("the replica holds no backup")

// Restored tells what a restore wrote.
type Restored struct {
	// AsOf is the moment whose state was restored: the one asked for, or
	// the replica's last change.
	AsOf  time.Time
	Bytes int64
}

// Restore writes the database held by the replica at rawURL to dbPath,
// which must not exist: its latest state, or its state at the moment at
// when at is not zero. The result passed SQLite's quick_check; on an error
// nothing is left at dbPath.
func Restore(ctx context.Context, rawURL, dbPath string, at time.Time) (Restored, error) {
	client, err := newClient(rawURL)
	if err != nil {
		return Restored{}, err
	}
	if err := client.Init(ctx); err != nil {
		return Restored{}, fmt.Errorf("reach the replica at %s: %w", Describe(rawURL), explain(err))
	}
	replica := litestream.NewReplicaWithClient(nil, client)

	first, last, err := replica.TimeBounds(ctx)
	switch {
	case err != nil:
		return Restored{}, fmt.Errorf("read the replica at %s: %w", Describe(rawURL), err)
	case last.IsZero():
		return Restored{}, fmt.Errorf("%s: %w", Describe(rawURL), ErrNoBackup)
	case !at.IsZero() && at.Before(first):
		return Restored{}, fmt.Errorf("the replica at %s starts at %s, after %s",
			Describe(rawURL), first.UTC().Format(time.RFC3339Nano), at.UTC().Format(time.RFC3339Nano))
	}
	opt := litestream.NewRestoreOptions()
	opt.OutputPath = dbPath
	opt.IntegrityCheck = litestream.IntegrityCheckQuick
	opt.Timestamp = at
	asOf := at
	if at.IsZero() {
		asOf = last
	}
	if err := replica.Restore(ctx, opt); err != nil {
		if errors.Is(err, litestream.ErrNoSnapshots) || errors.Is(err, litestream.ErrTxNotAvailable) {
			err = fmt.Errorf("%w (%w)", ErrNoBackup, err)
		}
		return Restored{}, fmt.Errorf("restore from %s: %w", Describe(rawURL), err)
	}
	fi, err := os.Stat(dbPath)
	if err != nil {
		return Restored{}, err
	}
	return Restored{AsOf: asOf, Bytes: fi.Size()}, nil
}
