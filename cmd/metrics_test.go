package cmd

import (
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

// metrics recount rebuilds counters that writes around the store left wrong.
func TestMetricsRecount(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	st := store.New(app)
	name := "Better"
	if _, err := st.Proposals().Submit(f.A.Org, f.A.Clients["both"], []enrichment.Proposal{{SKU: "SKU-1", Fields: enrichment.Fields{Name: &name}}},
		store.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	pending := func() int {
		m, err := st.Metrics().AcceptanceMetrics(f.A.Org, f.A.Clients["both"], store.Window{}, store.ModelFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return m.Pending
	}
	// a write around the store: the counters do not see it
	if _, err := app.DB().Update("revisions", dbx.Params{"status": "rejected", "reviewedAt": "2024-06-01 00:00:00.000Z"},
		dbx.HashExp{"organization": string(f.A.Org)}).Execute(); err != nil {
		t.Fatal(err)
	}
	if pending() != 1 {
		t.Fatal("the counters followed a write around the store: the test shows nothing")
	}
	r := mustRunCmd(t, metricsCommand, app, "recount", "--org", string(f.A.Org))
	if !strings.Contains(r.stdout, "1 organization") || pending() != 0 {
		t.Errorf("after recount: %q, pending %d", r.stdout, pending())
	}
	if r := mustRunCmd(t, metricsCommand, app, "recount"); !strings.Contains(r.stdout, "2 organization") {
		t.Errorf("recount of all: %q", r.stdout)
	}
	wantCmdErr(t, runCmd(metricsCommand, app, "recount", "--org", "99"), "no organization with id 99")
}
