package migrations

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// defaultUsers is the auth collection PocketBase creates in every new data
// folder, with an empty create rule and an avatar field: anyone could sign
// up and upload files. The service does not use it (reviewers have their
// own collection), so it is removed.
const defaultUsers = "users"

func init() {
	m.Register(func(app core.App) error {
		c, err := app.FindCollectionByNameOrId(defaultUsers)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // already removed
		}
		if err != nil {
			return fmt.Errorf("find the %s collection: %w", defaultUsers, err)
		}
		if err := app.Delete(c); err != nil {
			return fmt.Errorf("remove the %s collection: %w", defaultUsers, err)
		}
		return nil
	}, func(core.App) error {
		return nil // note: an open sign-up collection is not brought back
	})
}
