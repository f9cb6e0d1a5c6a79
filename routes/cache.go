package routes

import (
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// appCaches are the per-app caches of hot, rarely changing answers, each
// kept with the generation of its organization (store/generations.go): any
// change to an organization's keys or templates, in any process (a
// revocation from the command line included), moves the generation, and
// the next request computes the answer afresh.
type appCaches struct {
	// clients by key hash: found ones only, so unknown keys cannot fill it
	clients *store.GenerationCache[string, enrichment.Client]
	// the encoded attribute-templates answer by organization
	templates *store.GenerationCache[enrichment.Org, []byte]
}

const cachesKey = "enrichmentCaches"

// cachesOf returns app's caches, made on first use.
func cachesOf(app core.App) *appCaches {
	return app.Store().GetOrSet(cachesKey, func() any {
		return &appCaches{
			clients:   store.NewGenerationCache[string, enrichment.Client](10_000),
			templates: store.NewGenerationCache[enrichment.Org, []byte](1_000),
		}
	}).(*appCaches)
}
