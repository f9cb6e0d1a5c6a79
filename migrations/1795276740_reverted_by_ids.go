package migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// revertedBy holds the id of the reviewer or superuser who rolled a
// revision back. Earlier releases wrote "reviewer:EMAIL" or
// "superuser:EMAIL": each is rewritten to the id of the reviewer or
// superuser with that email. A name whose email matches no one (the
// account was deleted or its email changed since) is left as it is: there
// is no id to give it (actorNamesToIDs, which the reviewer of a decision
// took later). Down writes ids back as names.
func init() {
	m.Register(func(app core.App) error {
		return actorNamesToIDs(app, "revertedBy")
	}, func(app core.App) error {
		return actorIDsToNames(app, "revertedBy")
	})
}
