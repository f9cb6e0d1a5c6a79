package routes

import (
	"context"
	"database/sql"
	"path/filepath"

	"github.com/catalog-enrichment/enrichment/dbversion"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// appCaches are the per-app caches of hot, rarely changing answers. Every
// lookup first reads the database's version, so any commit (a
// revocation from the command line included) empties them at once.
type appCaches struct {
	versions *dbversion.Watcher
	// clients by key hash: found ones only, so unknown keys cannot fill it
	clients *dbversion.Cache[string, enrichment.Client]
	// the encoded attribute-templates answer by organization
	templates *dbversion.Cache[enrichment.Org, []byte]
}

const cachesKey = "enrichmentCaches"

// cachesOf returns app's caches, made on first use; their database
// connection is given back when the app terminates.
func cachesOf(app core.App) *appCaches {
	return app.Store().GetOrSet(cachesKey, func() any {
		c := &appCaches{
			versions: dbversion.New(func() *sql.DB {
				// note: PocketBase's concurrent (read) pool is always a *dbx.DB
				return app.ConcurrentDB().(*dbx.DB).DB()
			}, filepath.Join(app.DataDir(), "data.db")),
			clients:   dbversion.NewCache[string, enrichment.Client](10_000),
			templates: dbversion.NewCache[enrichment.Org, []byte](1_000),
		}
		app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
			c.versions.Close()
			return e.Next()
		})
		return c
	}).(*appCaches)
}

// version is the data version to read and fill the caches at; ok is false
// when it cannot be read, and then the caches must be bypassed.
func (c *appCaches) version(e *core.RequestEvent) (v dbversion.Version, ok bool) {
	// note: not the request's context: a client hanging up must not cost
	// the shared connection
	v, err := c.versions.Version(context.Background())
	if err != nil {
		e.App.Logger().Warn("enrichment: caches bypassed", "error", err.Error())
		return dbversion.Version{}, false
	}
	return v, true
}
