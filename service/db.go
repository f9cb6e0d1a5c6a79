package service

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

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

// dataPageSize is the page size of a data.db the service creates: 8 KiB
// instead of SQLite's 4. A product row, or a revision's, is about 2 KB, so
// a 4 KiB page held one and a third of the products' pages was unused; a
// bulk write sent a WAL frame, two system calls, for nearly every row, and
// one transaction's frames are looked up among each other (the import at
// 1M: 57-63 s instead of 80-83; a superseding batch of 1000 15% faster). 16
// KiB pages were faster still to write but slowed the reads by 13-40%; at 8
// KiB the reads stayed within 10% (docs/performance.md, "8 KiB pages").
// The page size is fixed when the database is first written: a data folder
// made before keeps its 4 KiB pages and works as before.
const dataPageSize = 8192

// dbConnect opens data.db and auxiliary.db with dbPragmas, data.db without
// automatic checkpoints, at commits or at close, and created with
// dataPageSize when it does not exist.
func dbConnect(path string) (*dbx.DB, error) {
	if filepath.Base(path) != "data.db" {
		return dbx.Open("sqlite", path+dbPragmas)
	}
	if err := createWithPageSize(path, dataPageSize); err != nil {
		return nil, err
	}
	connector, err := checkpoint.Connector(path + dbPragmas + noAutoCheckpoint)
	if err != nil {
		return nil, err
	}
	return dbx.NewFromDB(sql.OpenDB(connector), "sqlite"), nil
}

// createWithPageSize creates the database at path with pages of size bytes
// in WAL mode, unless a file is already there. note: one connection, the
// page size set before journal_mode: the driver runs a DSN's pragmas in an
// order of its own, and once WAL mode has written the header the page size
// can no longer change.
func createWithPageSize(path string, size int) error {
	if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil // note: an error other than "not there" is the open's to report
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, pragma := range []string{"PRAGMA page_size = " + strconv.Itoa(size), "PRAGMA journal_mode = WAL"} {
		if _, err := db.Exec(pragma); err != nil {
			return fmt.Errorf("create %s: %s: %w", path, pragma, err)
		}
	}
	return db.Close()
}
