package store

import (
	"database/sql"
	"fmt"
	"sync"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
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

// Generation reads org's generation. It runs once or twice per request, so
// outside a transaction it goes through a statement prepared once per app
// (a fifth of the cost of building and compiling the query every time).
func (s *Store) Generation(org enrichment.Org) (int64, error) {
	var g int64
	var err error
	if s.app.IsTransactional() {
		err = s.db().NewQuery(generationSQL + "{:org}").Bind(dbx.Params{"org": string(org)}).Row(&g)
	} else {
		var stmt *sql.Stmt
		if stmt, err = s.preparedGeneration(); err == nil {
			err = stmt.QueryRow(string(org)).Scan(&g)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("read generation of organization %s: %w", org, err)
	}
	return g, nil
}

type preparedStatement struct {
	once sync.Once
	stmt *sql.Stmt
	err  error
}

// preparedGeneration is the app's prepared generationSQL on the read pool;
// database/sql prepares it again on each connection it runs on.
func (s *Store) preparedGeneration() (*sql.Stmt, error) {
	p := s.app.Store().GetOrSet("enrichmentGenerationStmt", func() any { return &preparedStatement{} }).(*preparedStatement)
	p.once.Do(func() {
		db, ok := s.app.ConcurrentDB().(*dbx.DB)
		if !ok {
			p.err = fmt.Errorf("read pool is a %T", s.app.ConcurrentDB())
			return
		}
		p.stmt, p.err = db.DB().Prepare(generationSQL + "?")
	})
	return p.stmt, p.err
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
