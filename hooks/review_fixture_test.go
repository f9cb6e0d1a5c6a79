package hooks_test

import (
	"encoding/json/v2"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// Reviewers seeded by seedReview, with fixed ids so tables can name them.
const (
	reviewerA  = "reviewerorga001" // reva@example.com, organization A
	reviewerA2 = "reviewerorga002" // reva2@example.com, organization A
	reviewerB  = "reviewerorgb001" // revb@example.com, organization B
)

// Revisions seeded by seedReview, by record id.
const (
	revFull     = "101" // A, SKU-1, pending: every field, attributes to merge
	revPartial  = "102" // A, SKU-M, pending: name, slug, attributes
	revAccepted = "103" // A, SKU-NEW, already accepted
	revRejected = "104" // A, SKU-NEW, already rejected
	revNew      = "105" // A, SKU-NEW, pending: name
	revTooLong  = "106" // A, SKU-1, pending: a name over the field's maximum, and a slug
	revEmpty    = "107" // A, SKU-1, pending: proposes nothing
	revB        = "201" // B, SKU-1, pending: name
)

// longName is over the products' name maximum (1000), so applying it fails.
var longName = strings.Repeat("x", 1001)

// option is the id of the named template option of a tenant.
func option(tb testing.TB, app core.App, t fixture.Tenant, attribute string) int64 {
	tb.Helper()
	var id string
	err := app.DB().Select("id").From("attribute_options").
		Where(dbx.HashExp{"organization": string(t.Org), "attribute": attribute}).Row(&id)
	if err != nil {
		tb.Fatalf("option %s: %v", attribute, err)
	}
	n, err := enrichment.ParseID(id)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// fullProposal is revFull's proposal for A's SKU-1 (Color Red linked, Material
// linked, Fit free-form): replace each, add Size (a template option), Sole
// (with a proposed option of A) and Power (with a proposed option of B).
func fullProposal(tb testing.TB, app core.App, f *fixture.Fixture) enrichment.Fields {
	attrs := []enrichment.StoredAttribute{
		{Attribute: "Color", Detail: "Blue"},
		{Attribute: "Material", Detail: "Suede", OptionID: option(tb, app, f.A, "Size")},
		{Attribute: "Fit", Detail: "Narrow"},
		{Attribute: "Size", Detail: "44"},
		{Attribute: "Sole", Detail: "Rubber", OptionID: option(tb, app, f.A, "Material")},
		{Attribute: "Power", Detail: "900", OptionID: option(tb, app, f.B, "Power")},
	}
	files := []string{"https://docs.example/runner-pro.pdf"}
	return enrichment.Fields{Name: ptr("Runner Pro"), Slug: ptr("runner-pro"),
		Description: ptr("A lighter running shoe."), Attributes: &attrs, Files: &files}
}

// seedReview adds the reviewers and revisions above to a fixture app.
func seedReview(tb testing.TB, app core.App, f *fixture.Fixture) {
	tb.Helper()
	rc, err := app.FindCollectionByNameOrId("reviewers")
	if err != nil {
		tb.Fatal(err)
	}
	for id, org := range map[string]enrichment.Org{reviewerA: f.A.Org, reviewerA2: f.A.Org, reviewerB: f.B.Org} {
		r := core.NewRecord(rc)
		r.Id = id
		r.SetEmail(reviewerEmail(id))
		r.SetPassword("reviewer-password")
		r.Set("organization", string(org))
		if err := app.Save(r); err != nil {
			tb.Fatalf("reviewer %s: %v", id, err)
		}
	}
	attrs := []enrichment.StoredAttribute{{Attribute: "Material", Detail: "Mesh"}}
	decided := map[string]any{"approvedFields": []string{"name"}, "reviewedAt": "2024-07-01 00:00:00.000Z", "reviewer": "reviewer:earlier@example.com"}
	revisions := []struct {
		id, sku  string
		t        fixture.Tenant
		proposed enrichment.Fields
		status   string
		extra    map[string]any
	}{
		{revFull, "SKU-1", f.A, fullProposal(tb, app, f), enrichment.StatusPending, nil},
		{revPartial, "SKU-M", f.A, enrichment.Fields{Name: ptr("Trail Pro"), Slug: ptr("trail-pro"), Attributes: &attrs}, enrichment.StatusPending, nil},
		{revAccepted, "SKU-NEW", f.A, enrichment.Fields{Name: ptr("Newer")}, enrichment.StatusAccepted, decided},
		{revRejected, "SKU-NEW", f.A, enrichment.Fields{Name: ptr("Newer")}, enrichment.StatusRejected, map[string]any{"reviewedAt": "2024-07-01 00:00:00.000Z", "reviewer": "system"}},
		{revNew, "SKU-NEW", f.A, enrichment.Fields{Name: ptr("Newest Pro")}, enrichment.StatusPending, nil},
		{revTooLong, "SKU-1", f.A, enrichment.Fields{Name: &longName, Slug: ptr("too-long")}, enrichment.StatusPending, nil},
		{revEmpty, "SKU-1", f.A, enrichment.Fields{}, enrichment.StatusPending, nil},
		{revB, "SKU-1", f.B, enrichment.Fields{Name: ptr("Beta drill Pro")}, enrichment.StatusPending, nil},
	}
	c, err := app.FindCollectionByNameOrId("revisions")
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range revisions {
		product := productOf(tb, app, r.t, r.sku)
		base := map[string]any{}
		for _, name := range r.proposed.Names() {
			base[name] = product.Get(name)
		}
		rec := core.NewRecord(c)
		rec.Id = r.id
		rec.Load(map[string]any{"organization": string(r.t.Org), "apiClient": store.FormatID(r.t.Clients["submit"]),
			"product": product.Id, "sku": r.sku, "confidence": 85, "confidenceBand": "80-100",
			"proposed": r.proposed, "base": base, "status": r.status})
		rec.Load(r.extra)
		if err := app.Save(rec); err != nil {
			tb.Fatalf("revision %s: %v", r.id, err)
		}
	}
}

// reviewerEmail is the seeded reviewer's email.
func reviewerEmail(id string) string {
	return map[string]string{reviewerA: "reva@example.com", reviewerA2: "reva2@example.com", reviewerB: "revb@example.com"}[id]
}

// productOf finds a tenant's product by SKU.
func productOf(tb testing.TB, app core.App, t fixture.Tenant, sku string) *core.Record {
	tb.Helper()
	p, err := app.FindRecordById("products", store.FormatID(t.Products[sku]))
	if err != nil {
		tb.Fatalf("product %s: %v", sku, err)
	}
	return p
}

// revision reads a revision back.
func revision(tb testing.TB, app core.App, id string) *core.Record {
	tb.Helper()
	r, err := app.FindRecordById("revisions", id)
	if err != nil {
		tb.Fatalf("revision %s: %v", id, err)
	}
	return r
}

// token signs in "super" (the fixture's superuser) or a seeded reviewer; ""
// is a guest.
func token(tb testing.TB, app core.App, who string) string {
	tb.Helper()
	switch who {
	case "":
		return ""
	case "super":
		return fixture.SuperuserToken(tb, app)
	}
	r, err := app.FindRecordById("reviewers", who)
	if err != nil {
		tb.Fatal(err)
	}
	tok, err := r.NewAuthToken()
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// call is one request of a review scenario table, on a fresh seeded app.
// Every row says what its body holds (content, absent or check) or that it
// has none (noBody); run refuses a row that checks only the status.
type call struct {
	name    string
	method  string // PATCH when empty
	url     string // a bare revision id means its records API URL
	as      string // see token
	body    string
	headers map[string]string                      // beside the token's Authorization
	before  func(t testing.TB, app *tests.TestApp) // after seeding, before the request
	status  int
	content []string
	absent  []string
	check   func(t testing.TB, app *tests.TestApp, body []byte)
	noBody  bool // the answer has no body (a 204); check may still look at the data
}

// run plays each call as a tests.ApiScenario.
func run(t *testing.T, calls []call) {
	t.Helper()
	f := fixture.Get(t)
	for _, c := range calls {
		s := &tests.ApiScenario{Name: c.name, Method: c.method, URL: c.url, ExpectedStatus: c.status,
			ExpectedContent: c.content, NotExpectedContent: c.absent}
		if s.Method == "" {
			s.Method = http.MethodPatch
		}
		if !strings.HasPrefix(s.URL, "/") {
			s.URL = "/api/collections/revisions/records/" + s.URL
		}
		if c.body != "" {
			s.Body = strings.NewReader(c.body)
		}
		switch {
		case c.noBody && (len(c.content) > 0 || len(c.absent) > 0):
			t.Fatalf("%s: a row that expects no body looks for content in it", c.name)
		case c.noBody:
			// PocketBase's scenario checks the body is empty when it is given nothing to look for
		case len(c.content) > 0 || len(c.absent) > 0:
		case c.check != nil:
			// note: PocketBase's scenario wants an empty body when it is given
			// no content to look for; a JSON body never holds a NUL byte, so
			// this only turns that off, and c.check asserts the body
			s.NotExpectedContent = []string{"\x00"}
		default:
			t.Fatalf("%s: the row checks only the status; say what the body holds (content, absent or check) or that there is none (noBody)", c.name)
		}
		s.TestAppFactory = func(tb testing.TB) *tests.TestApp {
			app := f.NewApp(tb)
			seedReview(tb, app, f)
			s.Headers = maps.Clone(c.headers)
			if tok := token(tb, app, c.as); tok != "" {
				if s.Headers == nil {
					s.Headers = map[string]string{}
				}
				s.Headers["Authorization"] = tok
			}
			return app
		}
		s.BeforeTestFunc = func(t testing.TB, app *tests.TestApp, _ *core.ServeEvent) {
			if c.before != nil {
				c.before(t, app)
			}
		}
		s.AfterTestFunc = func(t testing.TB, app *tests.TestApp, res *http.Response) {
			if c.check == nil {
				return
			}
			body, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, app, body)
		}
		s.Test(t)
	}
}

// list is a records API list response.
type list struct {
	TotalItems int              `json:"totalItems"`
	Items      []map[string]any `json:"items"`
}

// decode reads a JSON body into T or fails the test.
func decode[T any](t testing.TB, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return v
}

// canonical renders v as deterministic JSON, for comparisons.
func canonical(t testing.TB, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(generic, json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func ptr(s string) *string { return &s }
