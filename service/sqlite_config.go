package service

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/catalog-enrichment/enrichment/internal/sqliteva"
	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLite's process-wide settings, made once before the first connection
// opens (sqlite3_config refuses them after). note: the driver's own init
// sets its mutexes the same way (modernc.org/sqlite/lib, mutex.go).

// pageCacheSlots is how many pages (of dataPageSize or less) SQLite's page
// caches take from one buffer of the process, allocated once: 4096 slots,
// 35 MB, before any cache allocates pages of its own.
//
// A pooled reader drops its whole cache whenever the WAL changed since its
// last read, which under writes is at nearly every read, and the driver's
// allocator gave those pages back to the system and mapped new ones for
// the next read: with four superseding writers, 7% of the server's CPU
// went to that, in system calls and page faults that cost 10-20 µs each on
// the machine we measure on (docs/performance.md, "The page caches' own
// buffer"). Slots of the buffer return to it instead, and its pages, once
// touched, stay the process's own memory.
const pageCacheSlots = 4096

func init() {
	if err := configureSQLite(); err != nil {
		panic(err)
	}
}

// configureSQLite gives the page caches their buffer.
func configureSQLite() error {
	tls := libc.NewTLS()
	defer tls.Close()
	header := new(int32)
	err := sqliteConfig(tls, sqlite3.SQLITE_CONFIG_PCACHE_HDRSZ, uintptr(unsafe.Pointer(header)))
	runtime.KeepAlive(header)
	if err != nil {
		return fmt.Errorf("sqlite: read the page cache's header size: %w", err)
	}
	slot := (dataPageSize + int(*header) + 7) &^ 7
	buffer := libc.Xmalloc(tls, types.Size_t(slot*pageCacheSlots)) // note: for the process's life
	if buffer == 0 {
		return fmt.Errorf("sqlite: no memory for the page cache's buffer")
	}
	if err := sqliteConfig(tls, sqlite3.SQLITE_CONFIG_PAGECACHE, buffer, int32(slot), int32(pageCacheSlots)); err != nil {
		return fmt.Errorf("sqlite: give the page cache its buffer: %w", err)
	}
	return nil
}

// sqliteConfig calls sqlite3_config(op, args...).
func sqliteConfig(tls *libc.TLS, op int32, args ...any) error {
	list, free, err := sqliteva.List(tls, args...)
	if err != nil {
		return err
	}
	defer free()
	if rc := sqlite3.Xsqlite3_config(tls, op, list); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("%s", libc.GoString(sqlite3.Xsqlite3_errstr(tls, rc)))
	}
	return nil
}
