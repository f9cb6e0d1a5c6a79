package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
)

// TestMetricCountersMatchARecount checks, after every kind of state change,
// that the counters the store keeps equal a count of the revisions made
// from scratch: the client's and the models' (revisions of two model
// versions and without one go through every change).
func TestMetricCountersMatchARecount(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	st := store.New(app)
	check := func(after string) {
		t.Helper()
		for _, org := range []enrichment.Org{f.A.Org, f.B.Org} {
			kept, err := st.Metrics().MetricCounters(org)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Metrics().RecountMetrics(org); err != nil {
				t.Fatal(err)
			}
			counted, err := st.Metrics().MetricCounters(org)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(kept, counted) {
				t.Fatalf("after %s, organization %s: counters\n%v\nrecount\n%v", after, org, kept, counted)
			}
		}
	}
	str := func(s string) *string { return &s }
	conf := func(n int) *int { return &n }
	submit := func(tenant fixture.Tenant, ps ...enrichment.Proposal) []int64 {
		t.Helper()
		res, err := st.Proposals().Submit(tenant.Org, tenant.Clients["both"], ps, store.SubmitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, r := range res {
			if r.RevisionID != nil {
				ids = append(ids, *r.RevisionID)
			}
		}
		return ids
	}
	decide := func(id int64, values map[string]any) {
		t.Helper()
		rec, err := app.FindRecordById("revisions", store.FormatID(id))
		if err != nil {
			t.Fatal(err)
		}
		rec.Load(values)
		if err := app.Save(rec); err != nil {
			t.Fatalf("decide %d: %v", id, err)
		}
	}

	v1, v2 := &enrichment.Model{Name: "writer", Version: "1"}, &enrichment.Model{Name: "writer", Version: "2"}
	ids := submit(f.A,
		enrichment.Proposal{SKU: "SKU-1", Confidence: conf(90), Fields: enrichment.Fields{Name: str("A"), Slug: str("a")}, Model: v1},
		enrichment.Proposal{SKU: "SKU-M", Confidence: conf(60), Fields: enrichment.Fields{Name: str("M"), Description: str("D")}, Model: v2},
		enrichment.Proposal{SKU: "SKU-NEW", Fields: enrichment.Fields{Name: str("N")}, Model: v1},
		enrichment.Proposal{SKU: "SKU-M-RED", Confidence: conf(10), Fields: enrichment.Fields{Name: str("R")}, Model: v2},
		enrichment.Proposal{SKU: "SKU-M-BLUE", Confidence: conf(70), Fields: enrichment.Fields{Name: str("B")}, Model: v1},
		enrichment.Proposal{SKU: "BULK-0001", Confidence: conf(99), Fields: enrichment.Fields{Name: str("1")}, Model: v2},
		enrichment.Proposal{SKU: "BULK-0001", Confidence: conf(98), Fields: enrichment.Fields{Name: str("1 again")}}, // supersedes its neighbour
		enrichment.Proposal{SKU: "SKU-1", Confidence: conf(80), Fields: enrichment.Fields{Description: str("D"),
			Attributes: &[]enrichment.StoredAttribute{{Attribute: "Color", Detail: "Blue"}, {Attribute: "Fit", Detail: "Narrow"}}}},
		enrichment.Proposal{SKU: "SKU-M", Confidence: conf(30), Fields: enrichment.Fields{Slug: str("m"), Files: &[]string{"m.pdf"}}},
		enrichment.Proposal{SKU: "BULK-0002", Confidence: conf(98), Fields: enrichment.Fields{Name: str("2")}},
	)
	submit(f.B, enrichment.Proposal{SKU: "SKU-1", Confidence: conf(50), Fields: enrichment.Fields{Name: str("B's")}, Model: v1})
	check("a submission")
	kept, err := st.Metrics().MetricCounters(f.A.Org)
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]bool{}
	for _, c := range kept {
		models[c.Model] = true
	}
	if !models[""] || !models["writer 1"] || !models["writer 2"] || len(models) != 3 {
		t.Fatalf("counters of %v, want the client's and two model versions'", models)
	}
	decide(ids[0], map[string]any{"status": "accepted"})
	check("an acceptance")
	decide(ids[1], map[string]any{"status": "accepted", "approvedFields": []string{"name"}, "reason": "incomplete"})
	check("a partial acceptance")
	decide(ids[2], map[string]any{"status": "rejected", "reason": "off_brand"})
	check("a rejection")
	decide(ids[7], map[string]any{"status": "accepted", "approvedFields": []string{"attributes.Color"},
		"corrections": map[string]any{"attributes.Color": "Navy"}, "fieldReasons": map[string]any{"description": "inaccurate"}})
	check("an acceptance of one attribute, corrected")
	decide(ids[8], map[string]any{"status": "accepted", "corrections": map[string]any{"slug": "m-2", "files": []string{"n.pdf"}}})
	check("an acceptance with corrections")
	// the edges of a window count per field from the decisions' masks as
	// the counters do
	all, err := st.Metrics().AcceptanceMetrics(f.A.Org, f.A.Clients["both"], store.Window{}, store.ModelFilter{})
	if err != nil {
		t.Fatal(err)
	}
	edge, err := st.Metrics().AcceptanceMetrics(f.A.Org, f.A.Clients["both"], store.Window{Since: clock.Now(app).Add(-time.Minute), Until: clock.Now(app).Add(time.Minute)}, store.ModelFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(all.ByField, edge.ByField) || all.Corrected != 2 || edge.Corrected != 2 {
		t.Errorf("by field: counters %+v (%d corrected), index %+v (%d corrected)", all.ByField, all.Corrected, edge.ByField, edge.Corrected)
	}
	want := []enrichment.FieldMetrics{{Field: "name", Proposed: 3, Applied: 2}, {Field: "slug", Proposed: 2, Applied: 2, Corrected: 1},
		{Field: "description", Proposed: 2, Applied: 0}, {Field: "attributes", Proposed: 1, Applied: 1, Corrected: 1},
		{Field: "files", Proposed: 1, Applied: 1, Corrected: 1}}
	if !slices.Equal(all.ByField, want) {
		t.Errorf("by field %+v, want %+v", all.ByField, want)
	}
	if _, err := st.Review().Rollback(f.A.Org, store.RollbackSelection{Revision: ids[0]}, "test", clock.Now(app)); err != nil {
		t.Fatal(err)
	}
	check("a rollback of one revision")
	res, err := st.Review().Rollback(f.A.Org, store.RollbackSelection{Client: f.A.Clients["both"], Window: store.Window{Since: clock.Now(app).Add(-time.Hour)},
		Model: store.ModelFilter{Name: "writer", Version: "2"}}, "test", clock.Now(app))
	if err != nil || res.Revisions != 1 {
		t.Fatalf("rolled back %+v, %v; want the partial acceptance of writer 2", res, err)
	}
	check("a rollback of a model version's window, of a decision with a reason")
	all, err = st.Metrics().AcceptanceMetrics(f.A.Org, f.A.Clients["both"], store.Window{}, store.ModelFilter{})
	if err != nil {
		t.Fatal(err)
	}
	edge, err = st.Metrics().AcceptanceMetrics(f.A.Org, f.A.Clients["both"], store.Window{Since: clock.Now(app).Add(-time.Minute), Until: clock.Now(app).Add(time.Minute)}, store.ModelFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(all.ByField, edge.ByField) || all.Reverted != 2 || edge.Reverted != 2 || all.Rejected != 3 || edge.Rejected != 3 ||
		edge.ByReason[3] != all.ByReason[3] || all.ByReason[3].Count != 1 {
		t.Errorf("after the rollbacks: counters %+v, index %+v", all, edge)
	}
	submit(f.A, enrichment.Proposal{SKU: "SKU-M-RED", Confidence: conf(20), Fields: enrichment.Fields{Name: str("R2")}, Model: v1})
	check("a supersession")
	if _, err := app.DB().Update("revisions", dbx.Params{"created": store.FormatTime(clock.Now(app).AddDate(0, -5, 0))},
		dbx.HashExp{"id": store.FormatID(ids[4])}).Execute(); err != nil {
		t.Fatal(err)
	}
	if err := st.Metrics().RecountMetrics(f.A.Org); err != nil { // the aging above went around the store
		t.Fatal(err)
	}
	if n, err := st.Proposals().ExpireOverdue(clock.Now(app)); err != nil || n != 1 {
		t.Fatalf("expired %d, %v", n, err)
	}
	check("an expiry")

	org, err := app.FindRecordById("organizations", string(f.A.Org))
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Delete(org); err != nil {
		t.Fatal(err)
	}
	if left, err := st.Metrics().MetricCounters(f.A.Org); err != nil || len(left) != 0 {
		t.Errorf("counters of the deleted organization: %v, %v", left, err)
	}
	check("an organization deleted")
	if kept, _ := st.Metrics().MetricCounters(f.B.Org); len(kept) == 0 {
		t.Error("the other organization lost its counters")
	}
}

// The migrations that made the counters' tables spell their columns out;
// the store derives them from the statuses, bands and reasons.
func TestMetricCounterColumnsMatchTheTable(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	var table []string
	if err := app.DB().NewQuery("SELECT name FROM pragma_table_info('" + schema.MetricCountsTable + "') ORDER BY cid").Column(&table); err != nil {
		t.Fatal(err)
	}
	want := append([]string{"organization", "client", "span", "start"}, store.CounterColumnNames()...)
	if !slices.Equal(table, want) {
		t.Errorf("columns of %s:\n%v\nthe store counts\n%v", schema.MetricCountsTable, table, want)
	}
	table = nil
	if err := app.DB().NewQuery("SELECT name FROM pragma_table_info('" + schema.ModelCountsTable + "') ORDER BY cid").Column(&table); err != nil {
		t.Fatal(err)
	}
	want = append([]string{"organization", "client", "span", "start", "model", "version"}, store.CounterColumnNames()...)
	if !slices.Equal(table, want) {
		t.Errorf("columns of %s:\n%v\nthe store counts\n%v", schema.ModelCountsTable, table, want)
	}
}
