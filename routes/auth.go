package routes

import (
	"errors"
	"net/http"
	"time"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// KeyHeader carries the raw API key on every request.
const KeyHeader = "X-Api-Client-Key"

// touchInterval is how stale lastUsedAt may get: a busy key costs one write
// per interval, and a key's first use still shows at once.
const touchInterval = 30 * time.Second

const clientKey = "enrichmentClient"

// requireAPIKey authenticates the request's key and remembers its client.
func requireAPIKey() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "enrichmentAPIKey",
		Func: func(e *core.RequestEvent) error {
			raw := e.Request.Header.Get(KeyHeader)
			if raw == "" {
				return e.UnauthorizedError("Missing API key: send it in the "+KeyHeader+" header.", nil)
			}
			st := store.New(e.App)
			client, err := st.ClientByKeyHash(apikey.Hash(raw))
			if errors.Is(err, store.ErrNotFound) || (err == nil && !client.Active) {
				return e.UnauthorizedError("Invalid or inactive API key.", nil)
			}
			if err != nil {
				return internalError(e, "authenticate api key", err)
			}
			if now := time.Now(); now.Sub(client.LastUsedAt) > touchInterval {
				if err := st.TouchClient(client.ID, now); err != nil {
					// note: a missed lastUsedAt is not worth failing the request
					e.App.Logger().Warn("enrichment: record key use", "error", err.Error(), "client", client.ID)
				}
			}
			e.Set(clientKey, client)
			return e.Next()
		},
	}
}

// requireScope refuses a client that lacks scope.
func requireScope(scope string) *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "enrichmentScope",
		Func: func(e *core.RequestEvent) error {
			if c := requestClient(e); !c.HasScope(scope) {
				return exactError(http.StatusForbidden, "Missing required scope: "+scope)
			}
			return e.Next()
		},
	}
}

// requestClient is the authenticated client of the request.
func requestClient(e *core.RequestEvent) enrichment.Client {
	c, _ := e.Get(clientKey).(enrichment.Client)
	return c
}

// requestOrg is the organization the request acts for; it comes only from the key.
func requestOrg(e *core.RequestEvent) enrichment.Org {
	return requestClient(e).Org
}
