// Package dbversion tells whether the database may have changed since a
// result was computed from it, in this process or any other (the command
// line writes beside a running server), so such results can be cached and
// still never be served stale. It uses SQLite's PRAGMA data_version on a
// connection of its own: the number changes whenever another connection
// commits, and reading it touches no table.
package dbversion

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// Watcher reads the database's data version on one dedicated connection.
type Watcher struct {
	open func() *sql.DB

	mu   sync.Mutex
	conn *sql.Conn
	stmt *sql.Stmt
}

// New returns a watcher that takes its connection from open's pool the first
// time it is asked, and again after Close.
func New(open func() *sql.DB) *Watcher {
	return &Watcher{open: open}
}

// Version is the database's data version as this watcher's connection sees
// it. Two calls return the same number only if no other connection committed
// in between. The connection never writes, so every commit counts.
func (w *Watcher) Version(ctx context.Context) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stmt == nil {
		if err := w.connect(ctx); err != nil {
			return 0, err
		}
	}
	var v int64
	if err := w.stmt.QueryRowContext(ctx).Scan(&v); err != nil {
		w.closeLocked()
		return 0, fmt.Errorf("read data_version: %w", err)
	}
	return v, nil
}

func (w *Watcher) connect(ctx context.Context) error {
	conn, err := w.open().Conn(ctx)
	if err != nil {
		return fmt.Errorf("dedicated connection for data_version: %w", err)
	}
	stmt, err := conn.PrepareContext(ctx, "PRAGMA data_version")
	if err != nil {
		conn.Close()
		return fmt.Errorf("prepare data_version: %w", err)
	}
	w.conn, w.stmt = conn, stmt
	return nil
}

// Close gives the connection back; a later Version opens a new one.
func (w *Watcher) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closeLocked()
}

func (w *Watcher) closeLocked() error {
	if w.conn == nil {
		return nil
	}
	w.stmt.Close()
	err := w.conn.Close()
	w.conn, w.stmt = nil, nil
	return err
}

// Cache keeps values computed at one data version; a lookup at any other
// version misses, so a value is never served after a commit that could have
// changed it. It holds at most limit values.
type Cache[K comparable, V any] struct {
	limit int

	mu      sync.RWMutex
	version int64
	values  map[K]V
}

// NewCache returns an empty cache of at most limit values.
func NewCache[K comparable, V any](limit int) *Cache[K, V] {
	return &Cache[K, V]{limit: limit}
}

// Get returns the value stored for k at version.
func (c *Cache[K, V]) Get(version int64, k K) (V, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.version != version || c.values == nil {
		var zero V
		return zero, false
	}
	v, ok := c.values[k]
	return v, ok
}

// Put stores v for k as computed at version (read before the computation
// began). A new version drops every value stored at another.
func (c *Cache[K, V]) Put(version int64, k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.values == nil || c.version != version || len(c.values) >= c.limit {
		c.values = make(map[K]V)
		c.version = version
	}
	c.values[k] = v
}
