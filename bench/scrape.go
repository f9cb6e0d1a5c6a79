package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"github.com/catalog-enrichment/enrichment/schema"
)

// The scrape scenario reads GET /metrics as Prometheus would, with the
// metrics token, from a server holding scrapeOrganizations organizations
// and the seeded history's revisions (-revisions).
const (
	scrapeToken         = "bench-metrics-token"
	scrapeOrganizations = 100
)

// seedOrganizationsIfRun creates organizations with `org create` until
// there are scrapeOrganizations, when the scrape scenario runs: the
// scrape's queries run once per organization.
func seedOrganizationsIfRun(ctx context.Context, cfg config, bin, data string) error {
	if !cfg.runs("scrape") {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, "data.db")+"?mode=ro")
	if err != nil {
		return err
	}
	var have int
	err = db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+schema.Organizations).Scan(&have)
	db.Close()
	if err != nil {
		return fmt.Errorf("count organizations: %w", err)
	}
	logf("creating %d organizations for the scrape", max(0, scrapeOrganizations-have))
	for i := have; i < scrapeOrganizations; i++ {
		var org struct {
			ID int64 `json:"id"`
		}
		if err := cliJSON(ctx, bin, data, &org, "org", "create", "--name", fmt.Sprintf("Bench Org %d", i+1), "--json"); err != nil {
			return err
		}
	}
	return nil
}

// scrape is one Prometheus scrape of the main listener.
func (t *target) scrape() *kind {
	return &kind{Name: "scrape", Unit: "series",
		Header: http.Header{"Authorization": {"Bearer " + scrapeToken}},
		Next: func(*rand.Rand, int) request {
			return request{Method: "GET", URL: opsmetrics.Path}
		},
		// the service's own series (not Go's and the process's)
		Count: func(b []byte) int { return strings.Count(string(b), "\nenrichment_") },
	}
}
