package store_test

import (
	"encoding/json/v2"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/apierror"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/hooks"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
	"github.com/pocketbase/pocketbase/tools/router"
)

// A set of decisions (DecideSet) must leave exactly what the same
// decisions leave when each revision is saved as a record through the
// review hook: products, revisions, accepted values, counters, webhook
// outbox, change feed, claims; and refuse the same ones with the same
// answers. Two copies of the same data decide the same proposals, one way
// each, and are compared.
func TestDecideSetMatchesTheReviewHook(t *testing.T) {
	f := fixture.Get(t)
	claimedAt := time.Now().Truncate(time.Second) // the same claim in both copies
	byHook, bySet := newDecisionWorld(t, f, claimedAt), newDecisionWorld(t, f, claimedAt)
	if !slices.Equal(byHook.revisions, bySet.revisions) {
		t.Fatalf("the two copies stored different revision ids: %v and %v", byHook.revisions, bySet.revisions)
	}
	decisions := byHook.decisions()

	hookErrs := make([]*router.ApiError, len(decisions))
	for i, d := range decisions {
		rec, err := byHook.app.FindRecordById(schema.Revisions, d.Revision)
		if err != nil {
			t.Fatal(err)
		}
		rec.Set("status", d.Status)
		rec.Set("approvedFields", d.ApprovedFields)
		rec.Set("reason", d.Reason)
		rec.Set("comment", d.Comment)
		hooks.MarkDecider(rec, byHook.reviewer)
		if err := byHook.app.Save(rec); err != nil && !errors.As(err, &hookErrs[i]) {
			t.Fatalf("decision %d through the hook: %v", i, err)
		}
	}

	who := store.SetDecider{Name: hooks.Decider(bySet.reviewer), Reviewer: bySet.reviewer.Id}
	outcomes, err := store.New(bySet.app).DecideSet(f.A.Org, decisions, who, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outcomes {
		var setErr *router.ApiError
		if o.Err != nil {
			var ok bool
			if setErr, ok = apierror.From(o.Err); !ok {
				t.Fatalf("decision %d: not a refusal: %v", i, o.Err)
			}
		}
		if answer(hookErrs[i]) != answer(setErr) {
			t.Errorf("decision %d (%s): the hook answered %s, the set %s", i, decisions[i].Revision, answer(hookErrs[i]), answer(setErr))
		}
	}
	refused := 0
	for _, e := range hookErrs {
		if e != nil {
			refused++
		}
	}
	if refused < 4 || refused == len(decisions) {
		t.Fatalf("the decisions should mix refusals and decisions: %d of %d refused", refused, len(decisions))
	}

	for _, q := range []struct{ what, sql string }{
		{"products", `SELECT id, name, slug, description, attributes, files, updated > {:since} AS moved FROM products
			WHERE organization = {:org} ORDER BY CAST(id AS INTEGER)`},
		{"revisions", `SELECT id, status, approvedFields, COALESCE(approvedAttributes, 'null') AS approvedAttributes, decisionMask,
			reason, comment, reviewer, decidedBy, policy, audit, reviewedAt != '' AS reviewed, closedAt != '' AS closed
			FROM revisions WHERE organization = {:org} ORDER BY CAST(id AS INTEGER)`},
		{"accepted values", `SELECT product, field, attribute, revision, before, applied FROM ` + schema.AcceptedValuesTable + `
			WHERE organization = {:org} ORDER BY product, field, attribute`},
		{"metric counters", `SELECT * FROM ` + schema.MetricCountsTable + ` WHERE organization = {:org} AND span = 'all'
			ORDER BY client`},
		{"model counters", `SELECT * FROM ` + schema.ModelCountsTable + ` WHERE organization = {:org} AND span = 'all'
			ORDER BY client, model, version`},
		{"trust counters", `SELECT client, template, confidence, proposed, clean, SUM(n) AS n FROM ` + schema.TrustCountsTable + `
			WHERE organization = {:org} GROUP BY client, template, confidence, proposed, clean ORDER BY 1, 2, 3, 4, 5`},
		{"webhook outbox", `SELECT webhook, event, revision FROM ` + schema.WebhookDeliveries + `
			WHERE organization = {:org} ORDER BY event, revision`},
		{"change feed", `SELECT DISTINCT product FROM ` + schema.ChangesTable + ` WHERE organization = {:org}
			AND seq > {:seq} ORDER BY 1`},
		{"claims", `SELECT revision, reviewer FROM ` + schema.ReviewClaims + ` ORDER BY revision`},
	} {
		hookRows, setRows := byHook.rows(t, q.sql), bySet.rows(t, q.sql)
		if !reflect.DeepEqual(hookRows, setRows) {
			t.Errorf("%s differ:\nhook %v\nset  %v", q.what, hookRows, setRows)
		}
		if len(hookRows) == 0 && q.what != "claims" {
			t.Errorf("%s: nothing to compare", q.what)
		}
	}
}

// answer renders a refusal as a client sees it.
func answer(e *router.ApiError) string {
	if e == nil {
		return "nothing (decided)"
	}
	b, _ := json.Marshal(map[string]any{"status": e.Status, "message": e.Message, "data": e.Data}, json.Deterministic(true))
	return string(b)
}

// decisionWorld is a copy of the fixture with proposals pending and a
// reviewer to decide them.
type decisionWorld struct {
	app       *tests.TestApp
	org       enrichment.Org
	reviewer  *core.Record
	revisions []string // the stored revisions, in the order proposed
	since     string   // before any decision
	seq       int64    // the change feed's last entry before any decision
}

func newDecisionWorld(t *testing.T, f *fixture.Fixture, claimedAt time.Time) *decisionWorld {
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	w := &decisionWorld{app: app, org: f.A.Org}
	st := store.New(app)
	fixture.ReviewerToken(t, app, string(f.A.Org))
	reviewer, err := app.FindAuthRecordByEmail(schema.Reviewers, fmt.Sprintf("reviewer-%s@example.com", f.A.Org))
	if err != nil {
		t.Fatal(err)
	}
	w.reviewer = reviewer
	other := core.NewRecord(reviewer.Collection())
	other.Id = "otherreviewer01"
	other.SetEmail("other@example.com")
	other.SetPassword("other-password")
	other.Set("organization", string(f.A.Org))
	if err := app.Save(other); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"submit", "both"} {
		if _, err := st.CreateWebhook(f.A.Org, f.A.Clients[kind], "https://hooks.example/"+kind,
			[]string{enrichment.EventRevisionAccepted, enrichment.EventRevisionRejected}, "sealed"); err != nil {
			t.Fatal(err)
		}
	}
	s := func(v string) *string { return &v }
	c := func(v int) *int { return &v }
	attrs := func(a ...string) *[]enrichment.StoredAttribute {
		var out []enrichment.StoredAttribute
		for i := 0; i < len(a); i += 2 {
			out = append(out, enrichment.StoredAttribute{Attribute: a[i], Detail: a[i+1]})
		}
		return &out
	}
	submit := func(client string, ps ...enrichment.Proposal) {
		res, err := st.Submit(f.A.Org, f.A.Clients[client], ps, store.SubmitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.RevisionID == nil {
				t.Fatalf("%s not stored: %+v", r.SKU, r)
			}
			w.revisions = append(w.revisions, store.FormatID(*r.RevisionID))
		}
	}
	p := func(sku string, conf int, fields enrichment.Fields) enrichment.Proposal {
		return enrichment.Proposal{SKU: sku, Confidence: c(conf), Fields: fields}
	}
	modeled := func(p enrichment.Proposal) enrichment.Proposal {
		p.Model = &enrichment.Model{Name: "writer", Version: "2"}
		return p
	}
	submit("submit",
		modeled(p("SKU-1", 95, enrichment.Fields{Name: s("Runner Pro"), Attributes: attrs("Color", "Blue", "Heel", "Low")})),
		p("SKU-M", 80, enrichment.Fields{Description: s("A trail shoe."), Files: &[]string{"https://docs.example/trail.pdf"}}),
		modeled(p("SKU-NEW", 40, enrichment.Fields{Name: s("Newest shoe")})),
		p("BULK-0001", 90, enrichment.Fields{Name: s("Bulk one, first")}),
		p("SKU-M-RED", 90, enrichment.Fields{Name: s("Trail Red")}),
		p("BULK-0002", 90, enrichment.Fields{Name: s("Bulk two")}),
		p("BULK-0003", 90, enrichment.Fields{Name: s("Bulk three")}),
		p("BULK-0004", 90, enrichment.Fields{Name: s("Bulk four")}),
		p("SKU-M-BLUE", 70, enrichment.Fields{Attributes: attrs("Color", "Navy", "Size", "44")}),
		p("BULK-0005", 60, enrichment.Fields{Name: s("Bulk five"), Slug: s("bulk-five")}),
	)
	submit("both", p("BULK-0001", 85, enrichment.Fields{Name: s("Bulk one, second")}))

	// BULK-0002's revision is decided before; BULK-0003's product retired;
	// SKU-M-RED's revision claimed by the other reviewer
	first, err := app.FindRecordById(schema.Revisions, w.revisions[5])
	if err != nil {
		t.Fatal(err)
	}
	first.Set("status", enrichment.StatusRejected)
	if err := app.Save(first); err != nil {
		t.Fatal(err)
	}
	if _, err := app.DB().Update(schema.Products, dbx.Params{"active": false},
		dbx.HashExp{"id": store.FormatID(f.A.Products["BULK-0003"])}).Execute(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Claim(f.A.Org, mustParse(t, w.revisions[4]), other.Id, claimedAt); err != nil {
		t.Fatal(err)
	}
	w.since = store.FormatTime(time.Now())
	if err := app.DB().NewQuery(`SELECT COALESCE(MAX(seq), 0) FROM ` + schema.ChangesTable).Row(&w.seq); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond) // note: the products' update times then differ from since
	return w
}

func mustParse(t *testing.T, id string) int64 {
	n, err := enrichment.ParseID(id)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// decisions are the decisions both copies make, in order.
func (w *decisionWorld) decisions() []store.SetDecision {
	d := func(i int, status string, approved []string, reason, comment string) store.SetDecision {
		return store.SetDecision{Revision: w.revisions[i], Decision: enrichment.Decision{Status: status,
			ApprovedFields: approved, Reason: reason, Comment: comment}}
	}
	return []store.SetDecision{
		d(0, enrichment.StatusAccepted, nil, "", ""),                                     // name and attributes
		d(1, enrichment.StatusAccepted, []string{"description"}, "incomplete", "no pdf"), // in part
		d(2, enrichment.StatusRejected, nil, "off_brand", "not our voice"),
		d(3, enrichment.StatusAccepted, nil, "", ""),                                   // BULK-0001, then
		d(10, enrichment.StatusAccepted, nil, "", ""),                                  // the other client's on the same product
		d(4, enrichment.StatusAccepted, nil, "", ""),                                   // claimed by another: 409
		d(5, enrichment.StatusAccepted, nil, "", ""),                                   // already decided
		d(6, enrichment.StatusAccepted, nil, "", ""),                                   // its product retired
		d(7, enrichment.StatusAccepted, []string{"slug"}, "", ""),                      // a field not proposed
		d(8, enrichment.StatusAccepted, []string{"attributes.Size"}, "inaccurate", ""), // one attribute of two
		d(9, enrichment.StatusRejected, []string{"name"}, "", ""),                      // approved fields on a rejection
	}
}

// rows runs a query of the comparison on the world's copy, every value as
// text.
func (w *decisionWorld) rows(t *testing.T, sql string) [][]string {
	rows, err := w.app.DB().NewQuery(sql).Bind(dbx.Params{"org": string(w.org), "since": w.since, "seq": w.seq}).Rows()
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for rows.Next() {
		values := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range values {
			ptrs[i] = &values[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range values {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	return out
}
