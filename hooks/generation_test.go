package hooks_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// TestWritePathsMoveTheGeneration lists every path that writes an
// organization's data and what it does to the organization's generation,
// which every cached answer is served under (store/cache.go). A path that
// changes what a cached answer is built from (keys, templates, options,
// brands, products) must move it, or cached answers would be served stale;
// a path that changes only revisions must not, or every superseding batch
// would throw away the organization's cached export page starts.
func TestWritePathsMoveTheGeneration(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	defer app.Cleanup()
	seedReview(t, app, f)
	org := f.A.Org
	st := store.New(app)
	save := func(collection, id string, change func(*core.Record)) error {
		r, err := app.FindRecordById(collection, id)
		if err != nil {
			return err
		}
		change(r)
		return app.Save(r)
	}
	decide := func(id, status string) func() error {
		return func() error {
			return save("revisions", id, func(r *core.Record) { r.Set("status", status) })
		}
	}
	importFile := func(name string) func() error {
		return func() error {
			_, err := catalog.Import(app, org, strings.NewReader(`{"products": [{"sku": "GEN-1", "externalId": "GEN-1", "name": "`+name+`"}]}`), catalog.Options{})
			return err
		}
	}
	submit := func() error {
		proposal := enrichment.Proposal{SKU: "SKU-M", Fields: enrichment.Fields{Name: ptr("Trail Pro 2")}}
		if _, err := st.Proposals().Submit(org, f.A.Clients["submit"], []enrichment.Proposal{proposal}, store.SubmitOptions{}); err != nil {
			return err
		}
		if got := revision(t, app, revPartial).GetStringSlice("supersededFields"); len(got) != 1 || got[0] != "name" {
			t.Errorf("the submission superseded %v of revision %s, want its name", got, revPartial)
		}
		return nil
	}
	firstID := func(collection string) string {
		var id string
		if err := app.DB().Select("id").From(collection).Where(dbx.HashExp{"organization": string(org)}).
			OrderBy("id").Limit(1).Row(&id); err != nil {
			t.Fatalf("a %s of A: %v", collection, err)
		}
		return id
	}

	// a trust policy, and a revision it accepts and draws for audit
	var policy, accepted string
	createPolicy := func() error {
		c, err := app.FindCollectionByNameOrId("trust_policies")
		if err != nil {
			return err
		}
		r := core.NewRecord(c)
		r.Load(map[string]any{"organization": string(org), "apiClient": store.FormatID(f.A.Clients["submit"]), "fields": []string{"name"}, "auditRate": 0.05})
		err = app.Save(r)
		policy = r.Id
		return err
	}
	policyAccepts := func() error {
		res, err := st.Proposals().Submit(org, f.A.Clients["submit"], []enrichment.Proposal{
			{SKU: "BULK-0001", Fields: enrichment.Fields{Name: ptr("Bulk, better")}}}, store.SubmitOptions{})
		if err != nil {
			return err
		}
		accepted = store.FormatID(*res[0].RevisionID)
		return policyAccept(st, org, policy, accepted)
	}

	newID, err := enrichment.ParseID(revNew)
	if err != nil {
		t.Fatal(err)
	}
	paths := []struct {
		name  string
		write func() error
		moves bool
	}{
		{"import creating a product", importFile("Generated"), true},
		{"import changing a product", importFile("Generated again"), true},
		{"import changing nothing", importFile("Generated again"), false},
		{"decision applying fields", decide(revNew, enrichment.StatusAccepted), true},
		{"rollback restoring a product", func() error {
			res, err := st.Review().Rollback(org, store.RollbackSelection{Revision: newID}, "test", clock.Now(app))
			if err == nil && res.Products != 1 {
				t.Errorf("the rollback restored %+v", res)
			}
			return err
		}, true},
		{"rollback restoring nothing (rolled back already)", func() error {
			_, err := st.Review().Rollback(org, store.RollbackSelection{Revision: newID}, "test", clock.Now(app))
			return err
		}, false},
		{"decision applying nothing (rejection)", decide(revFull, enrichment.StatusRejected), false},
		{"dashboard edit of a product's name", func() error {
			return save("products", store.FormatID(f.A.Products["SKU-1"]), func(r *core.Record) { r.Set("name", "Edited") })
		}, true},
		{"dashboard deactivation of a product", func() error {
			return save("products", store.FormatID(f.A.Products["SKU-1"]), func(r *core.Record) { r.Set("active", false) })
		}, true},
		{"dashboard edit of a template", func() error {
			return save("attribute_templates", firstID("attribute_templates"), func(r *core.Record) { r.Set("name", "Renamed") })
		}, true},
		{"dashboard edit of an option", func() error {
			return save("attribute_options", firstID("attribute_options"), func(r *core.Record) { r.Set("unit", "cm") })
		}, true},
		{"dashboard edit of a brand", func() error {
			return save("brands", firstID("brands"), func(r *core.Record) { r.Set("website", "https://edited.example") })
		}, true},
		{"key revocation", func() error {
			return save("api_clients", store.FormatID(f.A.Clients["revoked"]), func(r *core.Record) { r.Set("active", false) })
		}, true},
		{"submission superseding a pending proposal (revisions only)", submit, false},
		{"a trust policy created (no cached answer reads policies)", createPolicy, false},
		{"a trust policy's acceptance applying fields", policyAccepts, true},
		{"an audit closed (revisions only)", func() error {
			return save("revisions", accepted, func(r *core.Record) { r.Set("audit", enrichment.AuditConfirmed) })
		}, false},
		{"expiry (revisions only)", func() error {
			n, err := st.Proposals().ExpireOverdue(clock.Now(app).Add(10 * 365 * 24 * time.Hour))
			if err == nil && n == 0 {
				t.Error("expiry expired nothing")
			}
			return err
		}, false},
	}
	for _, p := range paths {
		before, err := st.Generation(org)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.write(); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		after, err := st.Generation(org)
		if err != nil {
			t.Fatal(err)
		}
		if moved := after != before; moved != p.moves {
			t.Errorf("%s: generation %d → %d; want moved = %v", p.name, before, after, p.moves)
		}
	}
}

// policyAccept accepts revision for the trust policy, drawn for audit, as
// the trust worker does.
func policyAccept(st *store.Store, org enrichment.Org, policy, revision string) error {
	outcomes, err := st.Review().DecideSet(org, []store.SetDecision{{Revision: revision,
		Decision: enrichment.Decision{Status: enrichment.StatusAccepted}, Audit: true}}, store.SetDecider{Policy: policy}, clock.Wall())
	if err == nil && !outcomes[0].Decided() {
		err = fmt.Errorf("policy %s did not accept revision %s: %v", policy, revision, outcomes[0].Err)
	}
	return err
}
