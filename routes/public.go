package routes

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// RegisterPublic serves the pages of pb_public at /: the copy embedded in the
// binary, or a pb_public folder beside the data folder when there is one, so
// an operator can change the pages without rebuilding.
func RegisterPublic(app core.App, embedded fs.FS) {
	app.OnServe().Bind(&hook.Handler[*core.ServeEvent]{
		Id: "enrichmentPublic",
		Func: func(se *core.ServeEvent) error {
			pages := embedded
			dir := filepath.Join(filepath.Dir(se.App.DataDir()), "pb_public")
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				pages = os.DirFS(dir)
				se.App.Logger().Info("enrichment: serving pages from " + dir)
			}
			se.Router.GET("/{path...}", apis.Static(pages, false)).
				BindFunc(func(e *core.RequestEvent) error {
					e.Response.Header().Set("Cache-Control", "no-cache")
					return e.Next()
				})
			return se.Next()
		},
	})
}
