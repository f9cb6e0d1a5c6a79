package store

import (
	"database/sql"
	"fmt"
	"sync"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// preparedStatements keeps statements of the hot read paths prepared once
// per app, on its read pool: the acceptance metrics' statements are long
// (a column per counter) and cheap to run, so parsing and planning them
// cost more than answering them. Their SQL is plain SQLite, with ?NNN
// parameters.
type preparedStatements struct {
	db *sql.DB // the read pool

	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// maxPrepared bounds the statements kept; the callers build their SQL from
// a few fixed shapes, far fewer than this.
const maxPrepared = 64

func preparedOf(app core.App) *preparedStatements {
	return app.Store().GetOrSet("enrichmentPrepared", func() any {
		// note: PocketBase's concurrent (read) pool is always a *dbx.DB
		p := &preparedStatements{db: app.ConcurrentDB().(*dbx.DB).DB(), stmts: map[string]*sql.Stmt{}}
		app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
			p.close()
			return e.Next()
		})
		return p
	}).(*preparedStatements)
}

// query runs query with args on a statement prepared the first time.
// note: a statement is prepared outside the lock (a prepare may wait for
// a connection of the pool), so two first uses may both prepare it: the
// first one stored is kept, the other closed.
func (p *preparedStatements) query(query string, args []any) (*sql.Rows, error) {
	p.mu.Lock()
	stmt, ok := p.stmts[query]
	room := len(p.stmts) < maxPrepared
	p.mu.Unlock()
	if !ok && room {
		fresh, err := p.db.Prepare(query)
		if err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
		p.mu.Lock()
		if stmt, ok = p.stmts[query]; !ok && len(p.stmts) < maxPrepared {
			p.stmts[query], stmt = fresh, fresh
		}
		p.mu.Unlock()
		if stmt != fresh {
			fresh.Close()
		}
	}
	if stmt == nil {
		return p.db.Query(query, args...)
	}
	return stmt.Query(args...)
}

func (p *preparedStatements) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for q, stmt := range p.stmts {
		stmt.Close()
		delete(p.stmts, q)
	}
}

// readPrepared runs a read query: on a statement prepared once, or within
// the store's transaction as it is.
func (s *base) readPrepared(query string, args ...any) (*sql.Rows, error) {
	if s.app.IsTransactional() {
		// note: PocketBase's builders are dbx's, which expose their executor
		ex, ok := s.db().(interface{ Executor() dbx.Executor })
		if !ok {
			return nil, fmt.Errorf("no executor in %T", s.db())
		}
		return ex.Executor().Query(query, args...)
	}
	return preparedOf(s.app).query(query, args)
}
