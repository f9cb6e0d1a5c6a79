package routes_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
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

const rollbacksURL = "/api/enrichment/review/rollbacks"

// rollbackKit submits and decides proposals for one test app.
type rollbackKit struct {
	t   *testing.T
	app *tests.TestApp
	st  *store.Store
}

// submit stores one proposal of tenant's client of kind and returns its id.
func (k rollbackKit) submit(tenant fixture.Tenant, kind string, p enrichment.Proposal) string {
	k.t.Helper()
	res, err := k.st.Proposals().Submit(tenant.Org, tenant.Clients[kind], []enrichment.Proposal{p}, store.SubmitOptions{})
	if err != nil {
		k.t.Fatal(err)
	}
	if res[0].RevisionID == nil {
		k.t.Fatalf("%s: %s %v", p.SKU, res[0].Status, res[0].Issues)
	}
	return store.FormatID(*res[0].RevisionID)
}

// decide saves a decision on revision id, as the records API would.
func (k rollbackKit) decide(id string, values map[string]any) {
	k.t.Helper()
	rec, err := k.app.FindRecordById(schema.Revisions, id)
	if err != nil {
		k.t.Fatal(err)
	}
	rec.Load(values)
	if err := k.app.Save(rec); err != nil {
		k.t.Fatalf("decide %s: %v", id, err)
	}
}

// accept submits p and accepts it in full.
func (k rollbackKit) accept(tenant fixture.Tenant, kind string, p enrichment.Proposal) string {
	id := k.submit(tenant, kind, p)
	k.decide(id, map[string]any{"status": "accepted"})
	return id
}

// product reads a product record of tenant by SKU.
func (k rollbackKit) product(tenant fixture.Tenant, sku string) *core.Record {
	k.t.Helper()
	p, err := k.app.FindRecordById(schema.Products, store.FormatID(tenant.Products[sku]))
	if err != nil {
		k.t.Fatal(err)
	}
	return p
}

// status reads a revision's status.
func (k rollbackKit) status(id string) string {
	k.t.Helper()
	rec, err := k.app.FindRecordById(schema.Revisions, id)
	if err != nil {
		k.t.Fatal(err)
	}
	return rec.GetString("status")
}

func ptr[T any](v T) *T { return &v }

// Who may roll back what, and the input a rollback refuses, naming the key.
func TestRollbackAccessAndInput(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	k := rollbackKit{t, app, store.New(app)}
	ofA := k.accept(f.A, "both", enrichment.Proposal{SKU: "SKU-NEW", Fields: enrichment.Fields{Name: ptr("Newest 2")}})
	ofB := k.accept(f.B, "both", enrichment.Proposal{SKU: "B-ONLY", Fields: enrichment.Fields{Name: ptr("Beta 2")}})
	reviewerA := fixture.ReviewerToken(t, app, string(f.A.Org))
	// an auth collection that is neither reviewers nor superusers
	vendors := core.NewAuthCollection("vendors")
	if err := app.Save(vendors); err != nil {
		t.Fatal(err)
	}
	vendor := core.NewRecord(vendors)
	vendor.SetEmail("vendor@example.com")
	vendor.SetPassword("vendor-password")
	if err := app.Save(vendor); err != nil {
		t.Fatal(err)
	}
	vendorToken, err := vendor.NewAuthToken()
	if err != nil {
		t.Fatal(err)
	}
	h := handler(t, app)
	clientA, clientB := f.A.Clients["both"], f.B.Clients["both"]
	post := http.MethodPost
	since := `,"since":"2020-01-01T00:00:00Z"`
	checkReviewerCases(t, h, []reviewerCase{
		{name: "no token", method: post, url: rollbacksURL, body: `{"revision":` + ofA + `}`, status: 401, want: []string{`"status":401`}},
		{name: "an API key instead", method: post, url: rollbacksURL, key: f.A.Keys["both"], body: `{"revision":` + ofA + `}`,
			status: 401, want: []string{`"status":401`}},
		{name: "another auth collection", method: post, url: rollbacksURL, token: vendorToken, body: `{"revision":` + ofA + `}`,
			status: 403, want: []string{`"status":403`}},
		{name: "GET", url: rollbacksURL, token: reviewerA, status: 405, want: []string{`"status":405`}},
		{name: "nothing named", method: post, url: rollbacksURL, token: reviewerA, body: `{}`, status: 400,
			want: []string{`"message":"Invalid apiClient: is required unless revision is given."`, `"since":{"code":"validation_required"`}},
		{name: "a client without since", method: post, url: rollbacksURL, token: reviewerA, body: fmt.Sprintf(`{"apiClient":%d}`, clientA),
			status: 400, want: []string{`"message":"Invalid since: is required with apiClient."`}},
		{name: "a client that is no id", method: post, url: rollbacksURL, token: reviewerA, body: `{"apiClient":"x"` + since + `}`,
			status: 400, want: []string{`"apiClient":{"code":"validation_invalid_id"`}},
		{name: "a bad time", method: post, url: rollbacksURL, token: reviewerA, body: fmt.Sprintf(`{"apiClient":%d,"since":"Tuesday"}`, clientA),
			status: 400, want: []string{`"since":{"code":"validation_invalid_time"`}},
		{name: "a bad until", method: post, url: rollbacksURL, token: reviewerA,
			body: fmt.Sprintf(`{"apiClient":%d`+since+`,"until":"2020-13-01"}`, clientA), status: 400, want: []string{`"until":{"code":"validation_invalid_time"`}},
		{name: "an empty model", method: post, url: rollbacksURL, token: reviewerA,
			body: fmt.Sprintf(`{"apiClient":%d`+since+`,"model":""}`, clientA), status: 400, want: []string{`"model":{"code":"validation_invalid_model"`}},
		{name: "a model version that is no string", method: post, url: rollbacksURL, token: reviewerA,
			body: fmt.Sprintf(`{"apiClient":%d`+since+`,"modelVersion":2}`, clientA), status: 400, want: []string{`"modelVersion":{"code":"validation_invalid_model"`}},
		{name: "a revision with a window", method: post, url: rollbacksURL, token: reviewerA, body: `{"revision":` + ofA + since + `}`,
			status: 400, want: []string{`"message":"Invalid since: must not be given with revision."`}},
		{name: "a revision that is no id", method: post, url: rollbacksURL, token: reviewerA, body: `{"revision":"0x1"}`,
			status: 400, want: []string{`"revision":{"code":"validation_invalid_id"`}},
		{name: "dryRun not a boolean", method: post, url: rollbacksURL, token: reviewerA, body: `{"revision":` + ofA + `,"dryRun":"yes"}`,
			status: 400, want: []string{`"dryRun":{"code":"validation_invalid_type"`}},
		{name: "not JSON", method: post, url: rollbacksURL, token: reviewerA, body: `{"revision":`, status: 400, want: []string{`"status":400`}},
		{name: "another organization's revision", method: post, url: rollbacksURL, token: reviewerA, body: `{"revision":` + ofB + `}`,
			status: 404, want: []string{`"message":"No such revision."`}, absent: []string{"Beta"}},
		{name: "a revision that does not exist", method: post, url: rollbacksURL, token: reviewerA, body: `{"revision":999999}`,
			status: 404, want: []string{`"message":"No such revision."`}},
		{name: "another organization's client", method: post, url: rollbacksURL, token: reviewerA,
			body: fmt.Sprintf(`{"apiClient":%d`+since+`}`, clientB), status: 404, want: []string{`"message":"No such API client."`}},
		{name: "the reviewer's own revision, as a string id", method: post, url: rollbacksURL, token: reviewerA, body: `{"revision":"` + ofA + `"}`,
			status: 200, want: []string{`{"revisions":1,"restored":1,"conflicts":0,"products":1}`}},
		{name: "a superuser, any organization", method: post, url: rollbacksURL, token: fixture.SuperuserToken(t, app),
			body: `{"revision":` + ofB + `}`, status: 200, want: []string{`{"revisions":1,"restored":1,"conflicts":0,"products":1}`}},
		{name: "again: nothing new", method: post, url: rollbacksURL, token: reviewerA, body: `{"revision":` + ofA + `}`,
			status: 200, want: []string{`{"revisions":0,"restored":0,"conflicts":0,"products":0}`}},
	})
	if got := k.status(ofB); got != enrichment.StatusReverted {
		t.Errorf("B's revision is %s after the superuser's rollback", got)
	}
	rec, err := app.FindRecordById(schema.Revisions, ofA)
	if err != nil {
		t.Fatal(err)
	}
	reviewer, err := app.FindAuthRecordByEmail(schema.Reviewers, "reviewer-"+string(f.A.Org)+"@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if by := rec.GetString("revertedBy"); by != reviewer.Id || rec.GetDateTime("revertedAt").IsZero() {
		t.Errorf("revertedBy %q, revertedAt %v; want the reviewer's id %s", by, rec.GetDateTime("revertedAt"), reviewer.Id)
	}
	// reverted is the revision's final state: closedAt is its moment, so the
	// vendor polling by since after the decision sees the rollback
	reverted, decided := rec.GetDateTime("revertedAt"), rec.GetDateTime("reviewedAt")
	if !rec.GetDateTime("closedAt").Equal(reverted) || !decided.Before(reverted) {
		t.Errorf("closedAt %v, reviewedAt %v, revertedAt %v", rec.GetDateTime("closedAt"), decided, reverted)
	}
	afterDecision := url.QueryEscape(decided.Time().Add(time.Millisecond).Format(time.RFC3339Nano))
	if res := request(h, http.MethodGet, revisionsURL+"?since="+afterDecision, f.A.Keys["both"], ""); !strings.Contains(res.Body.String(), `"id":`+ofA+`,`) ||
		!strings.Contains(res.Body.String(), `"status":"reverted"`) {
		t.Errorf("the vendor's revisions since the decision: %s", res.Body)
	}
}

// A rollback of a client's window: a dry run stores nothing; the real one
// restores every field and attribute still as applied (a later decision's
// value is a conflict, left alone), ends the revisions reverted, moves the
// products, the change feed, the generation and the metrics, and queues
// revision.reverted; the counters equal a recount; rolling back again
// selects nothing.
func TestRollbackWindow(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	k := rollbackKit{t, app, store.New(app)}
	org, client := f.A.Org, f.A.Clients["both"]
	if _, err := k.st.Outbox().CreateWebhook(org, client, "https://hooks.example/a", []string{enrichment.EventRevisionReverted}, "sealed"); err != nil {
		t.Fatal(err)
	}
	start := clock.Wall().Add(-time.Second)
	full := k.accept(f.A, "both", enrichment.Proposal{SKU: "SKU-1", Fields: enrichment.Fields{Name: ptr("Runner Pro"),
		Description: ptr("A lighter running shoe."), Files: &[]string{"https://docs.example/runner-2.pdf"},
		Attributes: &[]enrichment.StoredAttribute{{Attribute: "Fit", Detail: "Narrow"}, {Attribute: "Sole", Detail: "Rubber"}}}})
	// one attribute of two, corrected
	partial := k.submit(f.A, "both", enrichment.Proposal{SKU: "SKU-M", Fields: enrichment.Fields{
		Attributes: &[]enrichment.StoredAttribute{{Attribute: "Material", Detail: "Suede"}, {Attribute: "Lining", Detail: "Wool"}}}})
	k.decide(partial, map[string]any{"status": "accepted", "approvedFields": []string{"attributes.Material"},
		"corrections": map[string]any{"attributes.Material": "Nubuck"}})
	// a later decision of another client changed the name since: a conflict
	conflicted := k.accept(f.A, "both", enrichment.Proposal{SKU: "BULK-0001", Fields: enrichment.Fields{Name: ptr("Bulk one"), Slug: ptr("bulk-one")}})
	k.accept(f.A, "submit", enrichment.Proposal{SKU: "BULK-0001", Fields: enrichment.Fields{Name: ptr("Bulk first")}})
	rejected := k.submit(f.A, "both", enrichment.Proposal{SKU: "BULK-0002", Fields: enrichment.Fields{Name: ptr("Bulk two")}})
	k.decide(rejected, map[string]any{"status": "rejected", "reason": "inaccurate"})

	h := handler(t, app)
	reviewer := fixture.ReviewerToken(t, app, string(org))
	body := fmt.Sprintf(`{"apiClient":%d,"since":"%s"`, client, start.UTC().Format(time.RFC3339Nano))
	want := `{"revisions":3,"restored":7,"conflicts":1,"products":3}` // SKU-1: 5; SKU-M: 1; BULK-0001: the slug

	generation, err := k.st.Generation(org)
	if err != nil {
		t.Fatal(err)
	}
	feed, err := k.st.Catalog().Changes(org, 0, enrichment.Selection{}, 0, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	for _, dry := range []string{`true`, `"true"`} { // a generated client may send either
		res := requestAuth(h, http.MethodPost, rollbacksURL, reviewer, body+`,"dryRun":`+dry+`}`)
		if res.Code != 200 || res.Body.String() != want {
			t.Fatalf("dry run (dryRun %s): %d %s, want %s", dry, res.Code, res.Body, want)
		}
	}
	if k.status(full) != enrichment.StatusAccepted || k.product(f.A, "SKU-1").GetString("name") != "Runner Pro" {
		t.Fatal("the dry run stored something")
	}

	res := requestAuth(h, http.MethodPost, rollbacksURL, reviewer, body+`}`)
	if res.Code != 200 || res.Body.String() != want {
		t.Fatalf("rollback: %d %s, want %s", res.Code, res.Body, want)
	}
	for _, id := range []string{full, partial, conflicted} {
		if got := k.status(id); got != enrichment.StatusReverted {
			t.Errorf("revision %s is %s, want reverted", id, got)
		}
	}
	if got := k.status(rejected); got != enrichment.StatusRejected {
		t.Errorf("the rejected revision is %s", got)
	}
	sku1 := k.product(f.A, "SKU-1")
	if sku1.GetString("name") != "Runner" || sku1.GetString("description") != "A light running shoe." ||
		!slices.Equal(sku1.GetStringSlice("files"), []string{"https://docs.example/runner.pdf"}) {
		t.Errorf("SKU-1 not restored: %q %q %v", sku1.GetString("name"), sku1.GetString("description"), sku1.GetStringSlice("files"))
	}
	if attrs := sku1.GetString("attributes"); !strings.Contains(attrs, `"attribute":"Fit","detail":"Wide"`) || strings.Contains(attrs, "Sole") {
		t.Errorf("SKU-1's attributes not restored: %s", attrs)
	}
	if attrs := k.product(f.A, "SKU-M").GetString("attributes"); !strings.Contains(attrs, `"detail":"Leather"`) || strings.Contains(attrs, "Lining") {
		t.Errorf("SKU-M's attributes not restored: %s", attrs)
	}
	if bulk := k.product(f.A, "BULK-0001"); bulk.GetString("name") != "Bulk first" || bulk.GetString("slug") != "" {
		t.Errorf("BULK-0001: name %q (the later decision's stays), slug %q (restored)", bulk.GetString("name"), bulk.GetString("slug"))
	}

	// the vendor sees what became of each field and attribute
	list := request(h, http.MethodGet, revisionsURL+"?status=reverted", f.A.Keys["both"], "")
	items := decode[struct {
		Items []struct {
			ID         int64             `json:"id"`
			Fields     map[string]string `json:"fields"`
			Attributes map[string]string `json:"attributes"`
		} `json:"items"`
	}](t, list.Body.Bytes()).Items
	if len(items) != 3 {
		t.Fatalf("reverted revisions listed: %s", list.Body)
	}
	outcomes := map[string]string{}
	for _, it := range items {
		outcomes[store.FormatID(it.ID)] = fmt.Sprint(it.Fields, it.Attributes)
	}
	for id, o := range map[string]string{
		full:       "map[attributes:reverted description:reverted files:reverted name:reverted] map[Fit:reverted Sole:reverted]",
		partial:    "map[attributes:reverted] map[Lining:not_applied Material:reverted]",
		conflicted: "map[name:applied slug:reverted] map[]",
	} {
		if outcomes[id] != o {
			t.Errorf("revision %s: %s, want %s", id, outcomes[id], o)
		}
	}

	// metrics: reverted ones count as rejected, from the counters and at a
	// window's edges alike
	for _, q := range []string{"", "?since=" + start.UTC().Format(time.RFC3339Nano)} {
		m := request(h, http.MethodGet, "/api/enrichment/acceptance-rate"+q, f.A.Keys["both"], "").Body.String()
		for _, w := range []string{`"reviewed":4,"accepted":0,"rejected":4,`, `"corrected":0,"reverted":3,`,
			`{"field":"attributes","proposed":2,"applied":0,"corrected":0}`} {
			if !strings.Contains(m, w) {
				t.Errorf("acceptance-rate%s: no %s in %s", q, w, m)
			}
		}
	}
	kept, err := k.st.Metrics().MetricCounters(org)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.st.Metrics().RecountMetrics(org); err != nil {
		t.Fatal(err)
	}
	if counted, _ := k.st.Metrics().MetricCounters(org); !slices.Equal(kept, counted) {
		t.Errorf("counters after the rollback\n%v\nrecount\n%v", kept, counted)
	}

	// products moved: the change feed, the generation
	after, err := k.st.Catalog().Changes(org, 0, enrichment.Selection{}, feed.Last, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	var moved []int64
	for _, c := range after.Items {
		moved = append(moved, c.ProductID)
	}
	slices.Sort(moved)
	wantMoved := []int64{f.A.Products["SKU-1"], f.A.Products["SKU-M"], f.A.Products["BULK-0001"]}
	slices.Sort(wantMoved)
	if !slices.Equal(moved, wantMoved) {
		t.Errorf("change feed after the rollback: %v, want %v", moved, wantMoved)
	}
	if g, _ := k.st.Generation(org); g == generation {
		t.Error("the rollback did not move the generation")
	}

	// one revision.reverted per revision, showing it reverted
	var payloads []string
	if err := app.DB().Select("payload").From(schema.WebhookDeliveries).
		Where(dbx.HashExp{"event": enrichment.EventRevisionReverted}).Column(&payloads); err != nil {
		t.Fatal(err)
	}
	if len(payloads) != 3 || !strings.Contains(payloads[0], `"type":"revision.reverted"`) || !strings.Contains(payloads[0], `"status":"reverted"`) {
		t.Errorf("revision.reverted deliveries: %v", payloads)
	}

	res = requestAuth(h, http.MethodPost, rollbacksURL, reviewer, body+`}`)
	if res.Code != 200 || res.Body.String() != `{"revisions":0,"restored":0,"conflicts":0,"products":0}` {
		t.Errorf("rolling back again: %d %s", res.Code, res.Body)
	}
}
