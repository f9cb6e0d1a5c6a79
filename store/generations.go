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

// An organization's generation is a counter that triggers raise whenever its
// API keys, its attribute templates or the products of its export change, in
// any process (migrations/1795272700_generations.go). Every cached answer of
// an organization is kept with the generation it was computed at and served
// only while the generation has not moved: the one way this service tells
// whether a cached answer is still right. Read the generation before
// computing what is cached under it, so a change that commits meanwhile
// leaves the cached value under an old generation, never a new one.

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
func (s *Store) Generation(org enrichment.Org) (int64, error) {
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
func (s *Store) BumpGeneration(org enrichment.Org) error {
	_, err := s.db().NewQuery(`INSERT INTO {{` + schema.GenerationsTable + `}} ([[organization]], [[generation]])
		VALUES ({:org}, 1) ON CONFLICT ([[organization]]) DO UPDATE SET [[generation]] = [[generation]] + 1`).
		Bind(dbx.Params{"org": string(org)}).Execute()
	if err != nil {
		return fmt.Errorf("bump generation of organization %s: %w", org, err)
	}
	return nil
}

// GenerationCache keeps values, each with the generation of the organization
// it was computed at; the caller compares that with the current generation
// before serving it. It holds at most limit values (a full cache starts
// afresh), so keys that callers choose cannot grow it without bound.
type GenerationCache[K comparable, V any] struct {
	limit  int
	mu     sync.RWMutex
	values map[K]generational[V]
}

type generational[V any] struct {
	generation int64
	value      V
}

// NewGenerationCache returns an empty cache of at most limit values.
func NewGenerationCache[K comparable, V any](limit int) *GenerationCache[K, V] {
	return &GenerationCache[K, V]{limit: limit, values: map[K]generational[V]{}}
}

// Get returns the value stored for k and the generation it was computed at.
func (c *GenerationCache[K, V]) Get(k K) (value V, generation int64, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	g, ok := c.values[k]
	return g.value, g.generation, ok
}

// Put stores v for k as computed at generation.
func (c *GenerationCache[K, V]) Put(k K, generation int64, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.values[k]; !ok && len(c.values) >= c.limit {
		clear(c.values)
	}
	c.values[k] = generational[V]{generation, v}
}

// cachedPerOrg answers load for org from app's cache called name while org's
// generation holds. Inside a transaction it always loads: the transaction
// may hold writes that the cache has not seen.
func cachedPerOrg[V any](s *Store, name string, org enrichment.Org, load func() (V, error)) (V, error) {
	if s.app.IsTransactional() {
		return load()
	}
	cache := s.app.Store().GetOrSet(name, func() any {
		return NewGenerationCache[enrichment.Org, V](1_000)
	}).(*GenerationCache[enrichment.Org, V])
	generation, err := s.Generation(org)
	if err != nil {
		var zero V
		return zero, err
	}
	if v, at, ok := cache.Get(org); ok && at == generation {
		return v, nil
	}
	v, err := load()
	if err == nil {
		cache.Put(org, generation, v)
	}
	return v, err
}
