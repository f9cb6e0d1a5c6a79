package routes_test

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// The same decisions, made one records API update at a time on one copy of
// the data and as one group decision on another, leave the same rows in
// every table a decision writes: products, revisions, accepted values,
// metric, model and trust counters, webhook outbox, change feed, claims;
// and refuse the same ones with the same answers.
func TestRecordsAPIMatchesTheGroupRoute(t *testing.T) {
	f := fixture.Get(t)
	claimedAt := clock.Wall().Truncate(time.Second) // the same claim in both copies
	byRecords, byGroup := newDecisionWorld(t, f, claimedAt), newDecisionWorld(t, f, claimedAt)
	if !slices.Equal(byRecords.revisions, byGroup.revisions) {
		t.Fatalf("the two copies stored different revision ids: %v and %v", byRecords.revisions, byGroup.revisions)
	}
	decisions := byRecords.decisions()

	recordAnswers := make([]string, len(decisions))
	for i, d := range decisions {
		body, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		r := requestAuth(byRecords.h, http.MethodPatch, "/api/collections/revisions/records/"+d.ID, byRecords.token, string(body))
		if r.Code != http.StatusOK {
			recordAnswers[i] = answer(t, r.Body.Bytes())
		}
	}

	body, err := json.Marshal(map[string]any{"decisions": decisions})
	if err != nil {
		t.Fatal(err)
	}
	r := requestAuth(byGroup.h, http.MethodPost, decisionsURL, byGroup.token, string(body))
	if r.Code != http.StatusOK {
		t.Fatalf("group decision: %d %s", r.Code, r.Body)
	}
	var group struct {
		Results []struct {
			Outcome string         `json:"outcome"`
			Error   jsontext.Value `json:"error"`
		} `json:"results"`
	}
	if err := json.Unmarshal(r.Body.Bytes(), &group); err != nil || len(group.Results) != len(decisions) {
		t.Fatalf("group decision answered %s (%v)", r.Body, err)
	}
	refused := 0
	for i, res := range group.Results {
		groupAnswer := ""
		if res.Outcome != "decided" {
			groupAnswer = answer(t, res.Error)
		}
		if recordAnswers[i] != groupAnswer {
			t.Errorf("decision %d (%s): the records API answered %q, the group route %q", i, decisions[i].ID, recordAnswers[i], groupAnswer)
		}
		if recordAnswers[i] != "" {
			refused++
		}
	}
	if refused < 5 || refused == len(decisions) {
		t.Fatalf("the decisions should mix refusals and decisions: %d of %d refused", refused, len(decisions))
	}

	for _, q := range []struct{ what, sql string }{
		{"products", `SELECT id, name, slug, description, attributes, files FROM products
			WHERE organization = {:org} ORDER BY CAST(id AS INTEGER)`},
		{"revisions", `SELECT id, status, approvedFields, COALESCE(approvedAttributes, 'null') AS approvedAttributes, decisionMask,
			reason, comment, COALESCE(corrections, 'null') AS corrections, COALESCE(fieldReasons, 'null') AS fieldReasons,
			COALESCE((SELECT email FROM reviewers WHERE id = revisions.reviewer), reviewer) AS reviewer,
			decidedBy, policy, audit, reviewedAt != '' AS reviewed, closedAt = reviewedAt AS closedWhenReviewed
			FROM revisions WHERE organization = {:org} ORDER BY CAST(id AS INTEGER)`},
		{"accepted values", `SELECT product, field, attribute, revision, before, applied FROM ` + schema.AcceptedValuesTable + `
			WHERE organization = {:org} ORDER BY product, field, attribute`},
		{"metric counters", `SELECT * FROM ` + schema.MetricCountsTable + ` WHERE organization = {:org} AND span = 'all'
			ORDER BY client`},
		{"model counters", `SELECT * FROM ` + schema.ModelCountsTable + ` WHERE organization = {:org} AND span = 'all'
			ORDER BY client, model, version`},
		{"trust counters", `SELECT client, template, confidence, counted, correct, SUM(n) AS n FROM ` + schema.TrustCountsTable + `
			WHERE organization = {:org} GROUP BY client, template, confidence, counted, correct ORDER BY 1, 2, 3, 4, 5`},
		{"webhook outbox", `SELECT webhook, event, revision FROM ` + schema.WebhookDeliveries + `
			WHERE organization = {:org} ORDER BY event, revision`},
		{"change feed", `SELECT DISTINCT product FROM ` + schema.ChangesTable + ` WHERE organization = {:org}
			AND seq > {:seq} ORDER BY 1`},
		{"claims", `SELECT revision, reviewer FROM ` + schema.ReviewClaims + ` ORDER BY revision`},
	} {
		recordRows, groupRows := byRecords.rows(t, q.sql), byGroup.rows(t, q.sql)
		if !reflect.DeepEqual(recordRows, groupRows) {
			t.Errorf("%s differ:\nrecords API %v\ngroup route %v", q.what, recordRows, groupRows)
		}
		if len(recordRows) == 0 {
			t.Errorf("%s: nothing to compare", q.what)
		}
	}
}

// answer renders a refusal's body (status, message, data) with its keys
// in a fixed order, as a client reads it.
func answer(t *testing.T, body []byte) string {
	t.Helper()
	var v struct {
		Status  int    `json:"status"`
		Message string `json:"message"`
		Data    any    `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("a refusal's body %s: %v", body, err)
	}
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decisionWorld is a copy of the fixture with proposals pending and a
// reviewer, signed in, to decide them.
type decisionWorld struct {
	app       *tests.TestApp
	h         http.Handler
	token     string
	org       enrichment.Org
	revisions []string // the stored revisions, in the order proposed
	seq       int64    // the change feed's last entry before any decision
}

func newDecisionWorld(t *testing.T, f *fixture.Fixture, claimedAt time.Time) *decisionWorld {
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	w := &decisionWorld{app: app, h: handler(t, app), org: f.A.Org}
	st := store.New(app)
	w.token = fixture.ReviewerToken(t, app, string(f.A.Org))
	reviewer, err := app.FindAuthRecordByEmail(schema.Reviewers, fmt.Sprintf("reviewer-%s@example.com", f.A.Org))
	if err != nil {
		t.Fatal(err)
	}
	other := core.NewRecord(reviewer.Collection())
	other.Id = "otherreviewer01"
	other.SetEmail("other@example.com")
	other.SetPassword("other-password")
	other.Set("organization", string(f.A.Org))
	if err := app.Save(other); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"submit", "both"} {
		if _, err := st.Outbox().CreateWebhook(f.A.Org, f.A.Clients[kind], "https://hooks.example/"+kind,
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
		res, err := st.Proposals().Submit(f.A.Org, f.A.Clients[client], ps, store.SubmitOptions{})
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
		p("BULK-0006", 60, enrichment.Fields{Name: s("Bulk six"), Slug: s("bulk-six")}),
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
	id, err := enrichment.ParseID(w.revisions[4])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Review().Claim(f.A.Org, id, other.Id, claimedAt); err != nil {
		t.Fatal(err)
	}
	if err := app.DB().NewQuery(`SELECT COALESCE(MAX(seq), 0) FROM ` + schema.ChangesTable).Row(&w.seq); err != nil {
		t.Fatal(err)
	}
	return w
}

// decisionBody is one decision as the records API and the group route
// take it.
type decisionBody struct {
	ID             string         `json:"id"`
	Status         string         `json:"status"`
	ApprovedFields []string       `json:"approvedFields,omitempty"`
	Reason         string         `json:"reason,omitempty"`
	Comment        string         `json:"comment,omitempty"`
	Corrections    map[string]any `json:"corrections,omitempty"`
	FieldReasons   map[string]any `json:"fieldReasons,omitempty"`
}

// decisions are the decisions both copies make, in order.
func (w *decisionWorld) decisions() []decisionBody {
	d := func(i int, status string, approved []string, reason, comment string) decisionBody {
		return decisionBody{ID: w.revisions[i], Status: status, ApprovedFields: approved, Reason: reason, Comment: comment}
	}
	corrected := d(0, enrichment.StatusAccepted, nil, "", "") // name and attributes, the name corrected
	corrected.Corrections = map[string]any{"name": "Runner Pro 2", "attributes.Heel": "Flat"}
	inPart := d(1, enrichment.StatusAccepted, []string{"description"}, "incomplete", "no pdf") // in part, why per field
	inPart.FieldReasons = map[string]any{"files": "inaccurate"}
	badCorrection := d(10, enrichment.StatusAccepted, []string{"name"}, "", "") // a correction of a field not approved
	badCorrection.Corrections = map[string]any{"slug": "bulk-6"}
	badReason := d(9, enrichment.StatusAccepted, []string{"name"}, "", "") // a reason that is none of the six
	badReason.FieldReasons = map[string]any{"slug": "too long"}
	return []decisionBody{
		corrected,
		inPart,
		d(2, enrichment.StatusRejected, nil, "off_brand", "not our voice"),
		d(3, enrichment.StatusAccepted, nil, "", ""),                                   // BULK-0001, then
		d(11, enrichment.StatusAccepted, nil, "", ""),                                  // the other client's on the same product
		d(4, enrichment.StatusAccepted, nil, "", ""),                                   // claimed by another: 409
		d(5, enrichment.StatusAccepted, nil, "", ""),                                   // already decided
		d(6, enrichment.StatusAccepted, nil, "", ""),                                   // its product retired
		d(7, enrichment.StatusAccepted, []string{"slug"}, "", ""),                      // a field not proposed
		d(8, enrichment.StatusAccepted, []string{"attributes.Size"}, "inaccurate", ""), // one attribute of two
		badCorrection,
		badReason,
	}
}

// rows runs a query of the comparison on the world's copy, every value as
// text.
func (w *decisionWorld) rows(t *testing.T, sql string) [][]string {
	rows, err := w.app.DB().NewQuery(sql).Bind(dbx.Params{"org": string(w.org), "seq": w.seq}).Rows()
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
