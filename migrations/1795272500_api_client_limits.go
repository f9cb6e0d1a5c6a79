package migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
	"github.com/pocketbase/pocketbase/tools/types"
)

func init() {
	m.Register(func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("api_clients")
		if err != nil {
			return err
		}
		c.Fields.Add(
			&core.NumberField{Name: "rateLimit", OnlyInt: true, Min: types.Pointer(0.0),
				Help: "Requests per second (bursts of twice as many); 0 means unlimited."},
			// a rotated-out key keeps working until previousKeyExpiresAt
			&core.TextField{Name: "previousKeyHash", Hidden: true, Pattern: `^([0-9a-f]{64})?$`},
			&core.DateField{Name: "previousKeyExpiresAt"},
		)
		c.AddIndex("idx_api_clients_previous_key_hash", false, "previousKeyHash", "previousKeyHash != ''")
		if err := app.Save(c); err != nil {
			return err
		}
		// every existing key gets the default limit, 20 requests a second
		_, err = app.DB().NewQuery("UPDATE {{api_clients}} SET [[rateLimit]] = 20").Execute()
		return err
	}, func(app core.App) error {
		c, err := app.FindCollectionByNameOrId("api_clients")
		if err != nil {
			return err
		}
		c.RemoveIndex("idx_api_clients_previous_key_hash")
		c.Fields.RemoveByName("rateLimit")
		c.Fields.RemoveByName("previousKeyHash")
		c.Fields.RemoveByName("previousKeyExpiresAt")
		return app.Save(c)
	})
}
