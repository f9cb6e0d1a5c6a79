package routes

import (
	"net/http"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

var overviewRoutes = []route{
	{Method: http.MethodGet, Path: "/review/overview", Reviewer: true, Handler: reviewOverview},
}

// reviewOverview answers the reviewers' page with the acceptance metrics of
// every API client that proposed anything, computed by the store code of
// GET /acceptance-rate (no window), and of all of them together, each with
// its trends (the last weeks' decisions and the decisions by confidence),
// and the catalog's completeness now and by day (weighted by products). A
// reviewer sees their organization; a superuser every organization, or the
// one named by ?organization=ID.
func reviewOverview(e *core.RequestEvent) error {
	orgs, err := reviewedOrgs(e)
	if err != nil {
		return err
	}
	st := store.New(e.App)
	now := clock.Now(e.App)
	all := enrichment.NewTrends(now)
	out := enrichment.Overview{Clients: []enrichment.ClientMetrics{}, All: enrichment.NewAcceptanceMetrics(),
		Completeness: enrichment.CompletenessOverview{History: []enrichment.CompletenessDay{}}}
	for _, org := range orgs {
		o, err := st.Metrics().Overview(org)
		if err != nil {
			return internalError(e, "compute the overview", err)
		}
		ids := make([]int64, len(o.Clients))
		for i, c := range o.Clients {
			ids[i] = c.ID
		}
		trends, err := st.Metrics().ReviewTrends(org, ids, now)
		if err != nil {
			return internalError(e, "compute the overview's trends", err)
		}
		for _, c := range o.Clients {
			t := trends[c.ID]
			c.Weekly, c.Calibration = t.Weekly, t.Calibration
			all.Add(t)
			out.Clients = append(out.Clients, c)
		}
		out.All.Add(o.All)
		c, err := st.Catalog().CompletenessOverview(org, now)
		if err != nil {
			return internalError(e, "measure the completeness", err)
		}
		out.Completeness.Add(c)
	}
	out.All.Finish()
	out.Completeness = out.Completeness.Rounded()
	all.Finish()
	out.Weekly, out.Calibration = all.Weekly, all.Calibration
	return e.JSON(http.StatusOK, out)
}
