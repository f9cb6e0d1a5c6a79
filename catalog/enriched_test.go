package catalog

import (
	"encoding/json/v2"
	"fmt"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// The nightly cycle, product by product: import, a vendor's proposal, a
// reviewer's acceptance, then the feed again, stale or changed.

const enrichedTemplates = `"attributeTemplates": [{"name": "Shoes", "options": [{"attribute": "Color"}, {"attribute": "Size"}]}]`

// feedProduct is P-1 as the merchant's feed has it before any enrichment.
func feedProduct() Product {
	return Product{SKU: "P-1", ExternalID: "E-1", Name: "Runner", Slug: "runner", Description: "Old text.",
		AttributeTemplate: "Shoes", Attributes: []Attribute{{"Color", "Red"}, {"Size", "42"}}, Files: []string{"a.pdf"}}
}

// feed renders a catalog file of the given products, after the templates.
func feed(t *testing.T, products ...Product) string {
	t.Helper()
	b, err := json.Marshal(products)
	if err != nil {
		t.Fatal(err)
	}
	return `{` + enrichedTemplates + `, "products": ` + string(b) + `}`
}

func mustImport(t *testing.T, app core.App, org enrichment.Org, file string, opts Options) Result {
	t.Helper()
	if opts.Now == nil {
		opts.Now = nextImportTime
	}
	res, err := Import(app, org, strings.NewReader(file), opts)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return res
}

// newClient adds an API client of org that proposes.
func newClient(t *testing.T, app core.App, org enrichment.Org) int64 {
	t.Helper()
	id, err := store.New(app).Accounts().CreateClient(org, store.NewClient{Name: "vendor", Scopes: []string{enrichment.ScopeSubmit},
		KeyHash: strings.Repeat(fmt.Sprint(len(org)%10), 64), KeyPrefix: "cek_test"})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// accept has client propose fields for sku and a reviewer accept them all;
// it returns the revision's id.
func accept(t *testing.T, app core.App, org enrichment.Org, client int64, sku string, fields enrichment.Fields) string {
	t.Helper()
	res, err := store.New(app).Proposals().Submit(org, client, []enrichment.Proposal{{SKU: sku, Fields: fields}}, store.SubmitOptions{})
	if err != nil || res[0].RevisionID == nil {
		t.Fatalf("submit %s: %+v %v", sku, res, err)
	}
	id := store.FormatID(*res[0].RevisionID)
	rev, err := app.FindRecordById("revisions", id)
	if err != nil {
		t.Fatal(err)
	}
	rev.Set("status", enrichment.StatusAccepted)
	if err := app.Save(rev); err != nil {
		t.Fatalf("accept revision %s: %v", id, err)
	}
	return id
}

// outcomes are the per-field outcomes client's vendor sees, by revision id.
func outcomes(t *testing.T, app core.App, org enrichment.Org, client int64) map[string]string {
	t.Helper()
	page, err := store.New(app).Proposals().ClientRevisions(org, client, store.RevisionQuery{PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, it := range page.Items {
		var fields []string
		for _, f := range it.Fields {
			fields = append(fields, f.Field+":"+f.Outcome)
		}
		for _, a := range it.Attributes {
			fields = append(fields, "attributes."+a.Field+":"+a.Outcome)
		}
		out[fmt.Sprint(it.ID)] = strings.Join(fields, " ")
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func attrs(a ...enrichment.StoredAttribute) *[]enrichment.StoredAttribute { return &a }

// caughtUp imports the feed of the "Nightly" organization with P-1's
// accepted name: the feed catches up.
func caughtUp(t *testing.T, app core.App) {
	t.Helper()
	org, err := app.FindFirstRecordByData("organizations", "name", "Nightly")
	if err != nil {
		t.Fatal(err)
	}
	p := feedProduct()
	p.Name = "Runner Pro"
	if res := mustImport(t, app, enrichment.Org(org.Id), feed(t, p), Options{}); res.Unchanged != 1 {
		t.Fatalf("the feed that caught up: %+v", res)
	}
}

func TestImportRespectsAcceptedValues(t *testing.T) {
	cases := []struct {
		name      string
		proposals []enrichment.Fields              // accepted in order
		between   func(t *testing.T, app core.App) // after the acceptances, before the import
		file      func(p *Product)                 // the feed's changes to P-1; nil: the stale feed
		opts      Options
		want      func(p *productRow, options map[string]string) string // "" when P-1 is as it should be
		result    Result                                                // the import's product counts
		outcomes  []string                                              // per revision, in order
		remembers int                                                   // accepted values still on record
	}{
		{
			name:      "stale feed keeps an accepted name",
			proposals: []enrichment.Fields{{Name: ptr("Runner Pro")}},
			want:      wantField("name", "Runner Pro"),
			result:    Result{Unchanged: 1, KeptEnriched: 1},
			outcomes:  []string{"name:applied"}, remembers: 1,
		},
		{
			name:      "a real change wins and overwrites",
			proposals: []enrichment.Fields{{Name: ptr("Runner Pro"), Description: ptr("New text.")}},
			file:      func(p *Product) { p.Name = "Runner 2" },
			want:      wantFields("name", "Runner 2", "description", "New text."),
			result:    Result{Updated: 1, KeptEnriched: 1},
			outcomes:  []string{"name:overwritten description:applied"}, remembers: 1,
		},
		{
			name:      "a feed that caught up overwrites nothing, and the value is still the revision's",
			proposals: []enrichment.Fields{{Name: ptr("Runner Pro")}},
			file:      func(p *Product) { p.Name = "Runner Pro" },
			want:      wantField("name", "Runner Pro"),
			result:    Result{Unchanged: 1},
			outcomes:  []string{"name:applied"}, remembers: 1,
		},
		{
			name:      "a feed that caught up, then went stale again, keeps the accepted name",
			proposals: []enrichment.Fields{{Name: ptr("Runner Pro")}},
			between:   caughtUp,
			want:      wantField("name", "Runner Pro"),
			result:    Result{Unchanged: 1, KeptEnriched: 1},
			outcomes:  []string{"name:applied"}, remembers: 1,
		},
		{
			name:      "a feed that caught up, then changed, wins and overwrites",
			proposals: []enrichment.Fields{{Name: ptr("Runner Pro")}},
			between:   caughtUp,
			file:      func(p *Product) { p.Name = "Runner 2" },
			want:      wantField("name", "Runner 2"),
			result:    Result{Updated: 1},
			outcomes:  []string{"name:overwritten"},
		},
		{
			name: "attributes are kept one by one",
			proposals: []enrichment.Fields{{Attributes: attrs(
				enrichment.StoredAttribute{Attribute: "Color", Detail: "Blue"},
				enrichment.StoredAttribute{Attribute: "Lining", Detail: "Mesh"})}},
			file: func(p *Product) { p.Attributes[1].Detail = "43" },
			want: wantAttributes(`[{"attribute":"Color","detail":"Blue","optionId":%[1]s},` +
				`{"attribute":"Size","detail":"43","optionId":%[2]s},{"attribute":"Lining","detail":"Mesh"}]`),
			result:   Result{Updated: 1, KeptEnriched: 1},
			outcomes: []string{"attributes:applied attributes.Color:applied attributes.Lining:applied"}, remembers: 2,
		},
		{
			name: "one attribute changed in the feed, another kept",
			proposals: []enrichment.Fields{{Attributes: attrs(
				enrichment.StoredAttribute{Attribute: "Color", Detail: "Blue"},
				enrichment.StoredAttribute{Attribute: "Lining", Detail: "Mesh"})}},
			file: func(p *Product) { p.Attributes[0].Detail = "Green" },
			want: wantAttributes(`[{"attribute":"Color","detail":"Green","optionId":%[1]s},` +
				`{"attribute":"Size","detail":"42","optionId":%[2]s},{"attribute":"Lining","detail":"Mesh"}]`),
			result:   Result{Updated: 1, KeptEnriched: 1},
			outcomes: []string{"attributes:overwritten attributes.Color:overwritten attributes.Lining:applied"}, remembers: 1,
		},
		{
			name:      "files are kept whole",
			proposals: []enrichment.Fields{{Files: &[]string{"b.pdf", "c.pdf"}}},
			want:      wantField("files", `["b.pdf","c.pdf"]`),
			result:    Result{Unchanged: 1, KeptEnriched: 1},
			outcomes:  []string{"files:applied"}, remembers: 1,
		},
		{
			name:      "--overwrite-enriched lets the stale feed win",
			proposals: []enrichment.Fields{{Name: ptr("Runner Pro"), Slug: ptr("runner-pro")}},
			opts:      Options{OverwriteEnriched: true},
			want:      wantFields("name", "Runner", "slug", "runner"),
			result:    Result{Updated: 1},
			outcomes:  []string{"name:overwritten slug:overwritten"},
		},
		{
			name:      "a value changed since by someone else is no longer the revision's",
			proposals: []enrichment.Fields{{Name: ptr("Runner Pro")}},
			between: func(t *testing.T, app core.App) {
				p, err := app.FindFirstRecordByData("products", "sku", "P-1")
				if err != nil {
					t.Fatal(err)
				}
				p.Set("name", "Edited in the dashboard")
				if err := app.Save(p); err != nil {
					t.Fatal(err)
				}
			},
			want:     wantField("name", "Runner"),
			result:   Result{Updated: 1},
			outcomes: []string{"name:applied"},
		},
		{
			name:      "a second enrichment of a field still waits for the same feed value",
			proposals: []enrichment.Fields{{Name: ptr("Runner Pro")}, {Name: ptr("Runner Pro 2")}},
			want:      wantField("name", "Runner Pro 2"),
			result:    Result{Unchanged: 1, KeptEnriched: 1},
			outcomes:  []string{"name:applied", "name:applied"}, remembers: 1,
		},
		{
			name:      "a feed that changed after a second enrichment overwrites the last one",
			proposals: []enrichment.Fields{{Name: ptr("Runner Pro")}, {Name: ptr("Runner Pro 2")}},
			file:      func(p *Product) { p.Name = "Runner 2025" },
			want:      wantField("name", "Runner 2025"),
			result:    Result{Updated: 1},
			outcomes:  []string{"name:applied", "name:overwritten"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app := newApp(t)
			org := newOrg(t, app, "Nightly")
			other := Product{SKU: "P-2", ExternalID: "E-2", Name: "Sock"}
			mustImport(t, app, org, feed(t, feedProduct(), other), Options{})
			client := newClient(t, app, org)
			var revs []string
			for _, f := range c.proposals {
				revs = append(revs, accept(t, app, org, client, "P-1", f))
			}
			if c.between != nil {
				c.between(t, app)
			}
			before := products(t, app, org)

			p := feedProduct()
			if c.file != nil {
				c.file(&p)
			}
			res := mustImport(t, app, org, feed(t, p, other), c.opts)
			c.result.Templates, c.result.Options, c.result.Unchanged = 1, 2, c.result.Unchanged+1 // P-2 never changes
			if res != c.result {
				t.Errorf("result %+v, want %+v", res, c.result)
			}

			after := products(t, app, org)
			_, options := templateIDs(t, app, org)
			got := after["P-1"]
			if problem := c.want(&got, options); problem != "" {
				t.Errorf("P-1 %s; stored %+v", problem, got)
			}
			if written := got.Updated != before["P-1"].Updated; written != (res.Updated == 1) {
				t.Errorf("P-1's update time moved: %v, yet %d updated", written, res.Updated)
			}
			if after["P-2"] != before["P-2"] {
				t.Errorf("P-2 changed: %+v, was %+v", after["P-2"], before["P-2"])
			}
			seen := outcomes(t, app, org, client)
			for i, id := range revs {
				if seen[id] != c.outcomes[i] {
					t.Errorf("revision %s: %q, want %q", id, seen[id], c.outcomes[i])
				}
			}
			var remembered int
			if err := app.DB().Select("COUNT(*)").From("_enrichment_accepted_values").Row(&remembered); err != nil || remembered != c.remembers {
				t.Errorf("%d accepted values on record (%v), want %d", remembered, err, c.remembers)
			}

			// the same feed again changes nothing at all
			snap := snapshot(t, app)
			again := mustImport(t, app, org, feed(t, p, other), c.opts)
			if again.Unchanged != 2 || again.Created+again.Updated != 0 {
				t.Errorf("the same feed again: %+v", again)
			}
			if now := snapshot(t, app); now != snap {
				t.Errorf("the same feed again wrote:\nbefore %s\nafter %s", snap, now)
			}
		})
	}
}

// wantField checks one stored column of P-1.
func wantField(column, value string) func(p *productRow, options map[string]string) string {
	return wantFields(column, value)
}

// wantFields checks stored columns of P-1, given as column, value pairs.
func wantFields(pairs ...string) func(p *productRow, options map[string]string) string {
	return func(p *productRow, _ map[string]string) string {
		for i := 0; i < len(pairs); i += 2 {
			var got string
			switch pairs[i] {
			case "name":
				got = p.Name
			case "slug":
				got = p.Slug
			case "description":
				got = p.Description
			case "files":
				got = p.Files
			}
			if got != pairs[i+1] {
				return fmt.Sprintf("%s is %q, want %q", pairs[i], got, pairs[i+1])
			}
		}
		return ""
	}
}

// wantAttributes checks P-1's attributes JSON; %[1]s and %[2]s stand for
// the ids of the Color and Size options.
func wantAttributes(format string) func(p *productRow, options map[string]string) string {
	return func(p *productRow, options map[string]string) string {
		if want := fmt.Sprintf(format, options["Shoes/Color"], options["Shoes/Size"]); p.Attributes != want {
			return fmt.Sprintf("attributes are %s, want %s", p.Attributes, want)
		}
		return ""
	}
}

// recordedValue reads an accepted value on record, for the tests below.
func recordedValue(t *testing.T, app core.App, field, attribute string) (before *string, applied string) {
	t.Helper()
	var row struct {
		Before  *string `db:"before"`
		Applied string  `db:"applied"`
	}
	err := app.DB().Select("before", "applied").From("_enrichment_accepted_values").
		Where(dbx.HashExp{"field": field, "attribute": attribute}).One(&row)
	if err != nil {
		t.Fatalf("accepted value %s %s: %v", field, attribute, err)
	}
	return row.Before, row.Applied
}

func TestAcceptanceRemembersValues(t *testing.T) {
	app := newApp(t)
	org := newOrg(t, app, "Remember")
	mustImport(t, app, org, feed(t, feedProduct()), Options{})
	client := newClient(t, app, org)
	accept(t, app, org, client, "P-1", enrichment.Fields{
		Name:  ptr("Runner Pro"),
		Files: &[]string{"b.pdf"},
		Attributes: attrs(enrichment.StoredAttribute{Attribute: "Color", Detail: "Blue"},
			enrichment.StoredAttribute{Attribute: "Size", Detail: "42"}, // as it is: nothing set
			enrichment.StoredAttribute{Attribute: "Lining", Detail: "Mesh"}),
	})
	for _, c := range []struct {
		field, attribute string
		before           *string
		applied          string
	}{
		{"name", "", ptr("Runner"), "Runner Pro"},
		{"files", "", ptr(`["a.pdf"]`), `["b.pdf"]`},
		{"attributes", "Color", ptr("Red"), "Blue"},
		{"attributes", "Lining", nil, "Mesh"},
	} {
		before, applied := recordedValue(t, app, c.field, c.attribute)
		if !sameValue(before, c.before) || applied != c.applied {
			t.Errorf("%s %s: before %v applied %q, want %v %q", c.field, c.attribute, deref(before), applied, deref(c.before), c.applied)
		}
	}
	var n int
	if err := app.DB().Select("COUNT(*)").From("_enrichment_accepted_values").Row(&n); err != nil || n != 4 {
		t.Errorf("%d accepted values on record, want 4 (Size was proposed as it was) %v", n, err)
	}
	// deleting the product forgets them
	p, err := app.FindFirstRecordByData("products", "sku", "P-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Delete(p); err != nil {
		t.Fatal(err)
	}
	if err := app.DB().Select("COUNT(*)").From("_enrichment_accepted_values").Row(&n); err != nil || n != 0 {
		t.Errorf("%d accepted values of a deleted product remain %v", n, err)
	}
}
