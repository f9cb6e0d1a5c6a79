package service

import (
	"database/sql"
	"path/filepath"

	"github.com/catalog-enrichment/enrichment/checkpoint"
	"github.com/pocketbase/dbx"
)

// dbPragmas are PocketBase's (core.DefaultDBConnect: busy_timeout first,
// WAL, synchronous NORMAL, foreign keys) but for three:
//
//   - temp_store FILE instead of MEMORY: a sort no index serves, or a
//     DISTINCT, keeps its rows in SQLite's temporary store. In memory, one
//     request of the records API sorting a 1M-product organization deep
//     into its pages (perPage 500, a filter, sort=id) held every row it
//     passed: 650 MB of the server's own memory at 100k products, over
//     12 GB for four at 1M. In files, a sort spills its runs past a few
//     MB to the temporary folder, which the OS caches as file pages, and
//     the server's own memory stays bounded whatever is asked.
//   - mmap_size 1 GiB: SQLite reads the database file through a memory map
//     instead of read() calls into each connection's own page cache. Our
//     reads are random lookups over the whole catalog (SKU matching, id
//     lookups, export pages); without it, most of their time went to read()
//     calls and to allocating cache pages. The pages touched are the OS's
//     file cache, shared by all connections.
//   - cache_size 8 MB per connection instead of 32: with the map, the cache
//     only holds pages read from the WAL and pages being written. At 32 MB
//     the caches of a busy pool filled for minutes (the server's own memory
//     grew from 165 to 450 MB over a 10-minute soak); at 8 MB it stays
//     between 50 and 120 MB, and the harness's throughput did not change.
const dbPragmas = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=journal_size_limit(200000000)" +
	"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_pragma=temp_store(FILE)" +
	"&_pragma=cache_size(-8000)&_pragma=mmap_size(1073741824)&_defensive=1"

// noAutoCheckpoint is added for data.db: no commit copies the log into
// the database on its writer's time. While Litestream replicates data.db it
// alone checkpoints it, after it copied the WAL's new frames, as it asks of
// the applications it replicates (otherwise a checkpoint that a commit
// starts could restart the WAL in the moment Litestream holds no read
// transaction on it, before it read the frames, and Litestream would then
// upload a snapshot of the whole database). Otherwise `serve` runs the
// background checkpointer (checkpoint/). Nor does closing the last
// connection checkpoint (checkpoint.Connector): a command run without a
// server (an import, say) leaves its log, synced (checkpoint.Register),
// to the next server's checkpointer.
const noAutoCheckpoint = "&_pragma=wal_autocheckpoint(0)"

// dbConnect opens data.db and auxiliary.db with dbPragmas, data.db without
// automatic checkpoints, at commits or at close.
func dbConnect(path string) (*dbx.DB, error) {
	if filepath.Base(path) != "data.db" {
		return dbx.Open("sqlite", path+dbPragmas)
	}
	connector, err := checkpoint.Connector(path + dbPragmas + noAutoCheckpoint)
	if err != nil {
		return nil, err
	}
	return dbx.NewFromDB(sql.OpenDB(connector), "sqlite"), nil
}
