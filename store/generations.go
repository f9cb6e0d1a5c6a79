package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/catalog-enrichment/enrichment/dbversion"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// An organization's generation is a counter raised, in any process, by
// every write that changes what its cached answers are built from: its API
// keys, attribute templates and options, brands, and the products of its
// export (triggers, migrations/1795272700_generations.go, and BumpGeneration
// where no trigger sees the write). cache.go serves every cached answer
// while its organization's generation holds: the one way this service
// tells whether a cached answer is still right.

// generationSQL reads an organization's generation, 0 until something
// bumped it; the organization is the placeholder it ends with.
const generationSQL = `SELECT COALESCE(MAX(generation), 0) FROM ` + schema.GenerationsTable + ` WHERE organization = `

// Generation reads org's generation.
//
// note: it runs once or twice per request, and as a query it cost the key
// middleware a fifth of its throughput (make bench: auth probe 21-28% below
// GET /api/health instead of 8%). A generation can only move with a commit,
// so outside a transaction a generation read before is reused while the
// database's data version (dbversion: the WAL-index header, no system call)
// is the one it was read at. The data version alone cannot replace the
// generations: every commit anywhere (each submission) moves it, and would
// throw away every organization's cached export page starts.
func (s *base) Generation(org enrichment.Org) (int64, error) {
	if s.app.IsTransactional() {
		var g int64
		err := s.db().NewQuery(generationSQL + "{:org}").Bind(dbx.Params{"org": string(org)}).Row(&g)
		if err != nil {
			return 0, fmt.Errorf("read generation of organization %s: %w", org, err)
		}
		return g, nil
	}
	return generationsOf(s.app).read(org)
}

// generationReader reads an app's generations outside transactions, through
// a statement prepared once and behind the data version gate.
type generationReader struct {
	versions *dbversion.Watcher
	db       *sql.DB // the read pool

	prepare sync.Once
	stmt    *sql.Stmt
	err     error

	mu   sync.Mutex
	seen map[enrichment.Org]generationAt
}

// generationAt is a generation and the data version it was read at.
type generationAt struct {
	version    dbversion.Version
	generation int64
}

// maxSeenGenerations bounds the gate's memory: one entry per organization.
const maxSeenGenerations = 100_000

func generationsOf(app core.App) *generationReader {
	return app.Store().GetOrSet("enrichmentGenerations", func() any {
		// note: PocketBase's concurrent (read) pool is always a *dbx.DB
		db := app.ConcurrentDB().(*dbx.DB).DB()
		r := &generationReader{
			versions: dbversion.New(func() *sql.DB { return db }, filepath.Join(app.DataDir(), "data.db")),
			db:       db,
			seen:     map[enrichment.Org]generationAt{},
		}
		app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
			r.versions.Close()
			return e.Next()
		})
		return r
	}).(*generationReader)
}

func (r *generationReader) read(org enrichment.Org) (int64, error) {
	// note: the version is read before the generation, so a commit in
	// between leaves the generation filed under an older version
	version, versionErr := r.versions.Version(context.Background())
	if versionErr == nil {
		r.mu.Lock()
		at, ok := r.seen[org]
		r.mu.Unlock()
		if ok && at.version == version {
			return at.generation, nil
		}
	}
	r.prepare.Do(func() { r.stmt, r.err = r.db.Prepare(generationSQL + "?") })
	if r.err != nil {
		return 0, fmt.Errorf("prepare the generation query: %w", r.err)
	}
	var g int64
	if err := r.stmt.QueryRow(string(org)).Scan(&g); err != nil {
		return 0, fmt.Errorf("read generation of organization %s: %w", org, err)
	}
	if versionErr == nil {
		r.mu.Lock()
		if len(r.seen) >= maxSeenGenerations {
			clear(r.seen)
		}
		r.seen[org] = generationAt{version, g}
		r.mu.Unlock()
	}
	return g, nil
}

// BumpGeneration raises org's generation, for the writes no trigger sees:
// product inserts (see the migration).
func (s *base) BumpGeneration(org enrichment.Org) error {
	_, err := s.db().NewQuery(`INSERT INTO {{` + schema.GenerationsTable + `}} ([[organization]], [[generation]])
		VALUES ({:org}, 1) ON CONFLICT ([[organization]]) DO UPDATE SET [[generation]] = [[generation]] + 1`).
		Bind(dbx.Params{"org": string(org)}).Execute()
	if err != nil {
		return fmt.Errorf("bump generation of organization %s: %w", org, err)
	}
	return nil
}
