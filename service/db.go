package service

import (
	"github.com/pocketbase/dbx"
)

// mmapSize is how much of a database file SQLite reads through a memory
// map instead of read() calls into each connection's own page cache. Our
// reads are random lookups over the whole catalog (SKU matching, id lookups,
// export pages), so without it most of their time went to read() calls and
// to allocating cache pages. Only the pages touched count in memory, and
// they are the OS's file cache, shared by all connections.
const mmapSizeText = "1073741824" // 1 GiB

// dbConnect opens data.db and auxiliary.db with PocketBase's pragmas
// (core.DefaultDBConnect: busy_timeout first, WAL, synchronous NORMAL,
// foreign keys, a 32 MB page cache per connection) plus mmap_size.
func dbConnect(dbPath string) (*dbx.DB, error) {
	const pragmas = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=journal_size_limit(200000000)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_pragma=temp_store(MEMORY)&_pragma=cache_size(-32000)" +
		"&_pragma=mmap_size(" + mmapSizeText + ")&_defensive=1"
	return dbx.Open("sqlite", dbPath+pragmas)
}
