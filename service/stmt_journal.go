package service

import (
	"fmt"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	sqlite3 "modernc.org/sqlite/lib"
)

// stmtJournalSpill is how large a statement journal grows in memory before
// SQLite moves it to a temporary file: 32 MiB instead of SQLite's 64 KiB.
//
// A statement that changes many rows inside a transaction (a batch's
// superseded revisions, a group decision, a rollback) journals the
// original of every page it changes, so that it alone can be undone if it
// fails halfway. Past the spill size that journal is a temporary file
// (temp_store FILE, dbPragmas) written page by page: 8-9 ms of system
// calls in each superseding batch of 1000 on the machine we measure on,
// where one costs 10-15 µs (docs/performance.md, "Statement journals and
// the writer's cache"). SQLite empties an in-memory journal when its
// statement ends, and only the one writer writes, so this holds at most
// 32 MiB, briefly.
const stmtJournalSpill = 32 << 20

// The spill size is a process-wide setting that SQLite reads when a
// journal opens; it can be set only before the first connection opens,
// hence init. note: the driver's own init sets its mutexes the same way
// (modernc.org/sqlite/lib, mutex.go).
func init() {
	if err := setStmtJournalSpill(stmtJournalSpill); err != nil {
		panic(err)
	}
}

// setStmtJournalSpill calls sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes).
func setStmtJournalSpill(bytes int32) error {
	tls := libc.NewTLS()
	defer tls.Close()
	args := libc.Xmalloc(tls, types.Size_t(unsafe.Sizeof(uintptr(0))))
	if args == 0 {
		return fmt.Errorf("sqlite: no memory for the statement journal's configuration")
	}
	defer libc.Xfree(tls, args)
	if rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_STMTJRNL_SPILL, libc.VaList(args, bytes)); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("sqlite: set the statement journal's spill size: %s", libc.GoString(sqlite3.Xsqlite3_errstr(tls, rc)))
	}
	return nil
}
