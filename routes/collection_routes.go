package routes

import (
	"github.com/pocketbase/pocketbase/core"
)

// onCollectionRoute tells whether e came in on PocketBase's route pattern
// (as its router registers it: "POST /api/collections/{collection}/records")
// for the collection named name. note: the route takes the collection's
// id as well as its name, so the path alone does not say which it is.
func onCollectionRoute(e *core.RequestEvent, pattern, name string) bool {
	if e.Request.Pattern != pattern {
		return false
	}
	c, err := e.App.FindCachedCollectionByNameOrId(e.Request.PathValue("collection"))
	return err == nil && c.Name == name
}
