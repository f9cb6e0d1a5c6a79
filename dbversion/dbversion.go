// Package dbversion tells whether anything at all was committed to the
// database since a moment, in this process or any other (the command line
// writes beside a running server). The store uses it as a gate in front of
// the organizations' generations (store/generations.go): while nothing was
// committed, a generation read before still holds, and reading it again,
// once or twice per request, is skipped.
//
// The version is read from the WAL-index header at the start of the
// database's -shm file, which SQLite's writers update on every commit, in
// every process, and which its readers themselves read without a lock
// (see walIndexTryHdr in SQLite's wal.c): through a memory map that is a
// few loads, no system call. A dedicated connection keeps the file in
// use, so it is never deleted under the map, and answers PRAGMA
// data_version where there is no header to map.
package dbversion

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
)

// Version identifies the database's committed state: two readings are
// equal only if nothing was committed in between. Readings taken different
// ways (header or pragma) never compare equal, which only costs a miss.
type Version struct {
	header  walIndexHeader // the mapped header's words; zero when unmapped
	counter int64          // PRAGMA data_version, when the header is not mapped
}

// walIndexHeader is one copy of SQLite's WalIndexHdr: 48 bytes, among them
// a change counter, the last valid WAL frame and the WAL's salts.
type walIndexHeader [12]uint32

// EmptyLog says whether the version was read from the WAL-index header and
// the WAL held no committed frame then (mxFrame, the header's fifth word,
// is 0): a writer that starts the WAL over writes such a header before its
// commit writes the next.
func (v Version) EmptyLog() bool {
	return v.header != walIndexHeader{} && v.header[4] == 0
}

// Watcher reads the database's version.
type Watcher struct {
	open func() *sql.DB
	path string // of the database file; its -shm file is mapped

	mu   sync.Mutex
	conn *sql.Conn
	stmt *sql.Stmt
	shm  atomic.Pointer[sharedHeader]
}

// New returns a watcher of the database at path, whose connection comes
// from open's pool the first time it is asked, and again after Close.
func New(open func() *sql.DB, path string) *Watcher {
	return &Watcher{open: open, path: path}
}

// Version reads the database's current version.
func (w *Watcher) Version(ctx context.Context) (Version, error) {
	if shm := w.shm.Load(); shm != nil {
		if h, ok := shm.read(); ok {
			return Version{header: h}, nil
		}
		// a writer is updating the header: ask SQLite
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stmt == nil {
		if err := w.connect(ctx); err != nil {
			return Version{}, err
		}
		if shm := w.shm.Load(); shm != nil {
			if h, ok := shm.read(); ok {
				return Version{header: h}, nil
			}
		}
	}
	var v int64
	if err := w.stmt.QueryRowContext(ctx).Scan(&v); err != nil {
		w.closeLocked()
		return Version{}, fmt.Errorf("read data_version: %w", err)
	}
	return Version{counter: v}, nil
}

func (w *Watcher) connect(ctx context.Context) error {
	conn, err := w.open().Conn(ctx)
	if err != nil {
		return fmt.Errorf("dedicated connection for the database version: %w", err)
	}
	stmt, err := conn.PrepareContext(ctx, "PRAGMA data_version")
	if err != nil {
		conn.Close()
		return fmt.Errorf("prepare data_version: %w", err)
	}
	// note: a read first, so that the connection has opened the WAL index
	var v int64
	if err := stmt.QueryRowContext(ctx).Scan(&v); err != nil {
		stmt.Close()
		conn.Close()
		return fmt.Errorf("read data_version: %w", err)
	}
	w.conn, w.stmt = conn, stmt
	if shm, err := mapHeader(w.path + "-shm"); err == nil {
		w.shm.Store(shm)
	}
	return nil
}

// Close stops reading the header and gives the connection back; a later
// Version opens them again.
func (w *Watcher) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closeLocked()
}

func (w *Watcher) closeLocked() error {
	// note: the header stays mapped (one page), since a Version that loaded
	// it just before may still be reading it
	w.shm.Store(nil)
	if w.conn == nil {
		return nil
	}
	w.stmt.Close()
	err := w.conn.Close()
	w.conn, w.stmt = nil, nil
	return err
}

// Mapped reports whether versions come from the mapped header.
func (w *Watcher) Mapped() bool {
	return w.shm.Load() != nil
}
