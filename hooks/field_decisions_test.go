package hooks_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// attributeDetails maps a product's attribute names to their details.
func attributeDetails(t testing.TB, p *core.Record) map[string]string {
	t.Helper()
	var attrs []enrichment.StoredAttribute
	if err := p.UnmarshalJSONField("attributes", &attrs); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, a := range attrs {
		out[a.Attribute] = a.Detail
	}
	return out
}

// unchanged checks that a refused decision left the revision pending and
// the product as it was.
func unchanged(before *map[string]any, f *fixture.Fixture) func(testing.TB, *tests.TestApp, []byte) {
	return func(t testing.TB, app *tests.TestApp, _ []byte) {
		pending(t, app, revFull)
		if got := changedFields(t, *before, productOf(t, app, f.A, "SKU-1")); len(got) > 0 {
			t.Errorf("a refused decision changed %v", got)
		}
	}
}

// supersedeAttribute marks attribute name of revFull superseded, as a newer
// proposal of the same client would.
func supersedeAttribute(name string) func(testing.TB, *tests.TestApp) {
	return func(t testing.TB, app *tests.TestApp) {
		_, err := app.DB().Update("revisions", dbx.Params{"supersededAttributes": `["` + name + `"]`}, dbx.HashExp{"id": revFull}).Execute()
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestFieldDecisions(t *testing.T) {
	f := fixture.Get(t)
	var before map[string]any
	snap := snapshot(&before, f.A, "SKU-1")
	refused := unchanged(&before, f)
	run(t, []call{
		{name: "one attribute approved, the others left as they were", url: revFull, as: reviewerA,
			body:   `{"status":"accepted","approvedFields":["name","attributes.Color","attributes.Size"]}`,
			before: snap, status: 200, content: []string{`"approvedFields":["name","attributes"]`, `"approvedAttributes":["Color","Size"]`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				p := productOf(t, app, f.A, "SKU-1")
				got := attributeDetails(t, p)
				if got["Color"] != "Blue" || got["Size"] != "44" || got["Fit"] != "Wide" || got["Sole"] != "" || p.GetString("name") != "Runner Pro" {
					t.Errorf("product %v, attributes %v", p.FieldsData(), got)
				}
				if p.GetString("slug") == "runner-pro" {
					t.Error("the slug was not approved, yet applied")
				}
			}},
		{name: "attributes alone approves every pending attribute", url: revFull, as: reviewerA,
			body: `{"status":"accepted","approvedFields":["attributes"],"reason":"other"}`, before: supersedeAttribute("Fit"),
			status: 200, content: []string{`"approvedAttributes":["Color","Material","Size","Sole","Power"]`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				if got := attributeDetails(t, productOf(t, app, f.A, "SKU-1")); got["Fit"] != "Wide" || got["Power"] != "900" {
					t.Errorf("attributes %v", got)
				}
			}},
		{name: "more than five entries in approvedFields", url: revFull, as: reviewerA,
			body: `{"status":"accepted","approvedFields":["name","slug","description","files",` +
				`"attributes.Color","attributes.Fit","attributes.Size"]}`,
			status: 200, content: []string{`"approvedFields":["name","slug","description","attributes","files"]`,
				`"approvedAttributes":["Color","Fit","Size"]`}},
		{name: "an attribute not proposed", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","approvedFields":["attributes.Weight"]}`,
			status: 400, content: []string{`"approvedFields"`, `attributes.Weight`, `validation_not_proposed`}, check: refused},
		{name: "a superseded attribute", url: revFull, as: reviewerA, before: func(t testing.TB, app *tests.TestApp) {
			snap(t, app)
			supersedeAttribute("Color")(t, app)
		}, body: `{"status":"accepted","approvedFields":["attributes.Color"]}`,
			status: 400, content: []string{`attributes.Color`, `validation_field_superseded`}, check: refused},
		{name: "corrections applied instead of the proposal", url: revFull, as: reviewerA,
			body: `{"status":"accepted","approvedFields":["name","attributes.Color","files"],` +
				`"corrections":{"attributes.Color":"Navy","name":"Runner Max","files":["https://docs.example/max.pdf"]}}`,
			status: 200, content: []string{`"corrections":{"name":"Runner Max","attributes.Color":"Navy","files":["https://docs.example/max.pdf"]}`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				p := productOf(t, app, f.A, "SKU-1")
				if p.GetString("name") != "Runner Max" || attributeDetails(t, p)["Color"] != "Navy" ||
					!slices.Equal(p.GetStringSlice("files"), []string{"https://docs.example/max.pdf"}) {
					t.Errorf("product %v", p.FieldsData())
				}
				// the corrected value is the accepted value a catalog import keeps
				values, err := store.New(app).Catalog().AcceptedValues(f.A.Org, []int64{mustID(t, p.Id)})
				if err != nil {
					t.Fatal(err)
				}
				var applied []string
				for _, v := range values[mustID(t, p.Id)] {
					applied = append(applied, v.Field+"/"+v.Attribute+"="+v.Applied)
				}
				slices.Sort(applied)
				want := []string{"attributes/Color=Navy", `files/=["https://docs.example/max.pdf"]`, "name/=Runner Max"}
				if !slices.Equal(applied, want) {
					t.Errorf("accepted values %v, want %v", applied, want)
				}
			}},
		{name: "accepting all with a correction", url: revFull, as: reviewerA,
			body: `{"status":"accepted","corrections":{"description":"A lighter shoe."}}`, status: 200,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				if got := productOf(t, app, f.A, "SKU-1").GetString("description"); got != "A lighter shoe." {
					t.Errorf("description %q", got)
				}
			}},
		{name: "a correction of a field not applied", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","approvedFields":["name"],"corrections":{"slug":"runner"}}`,
			status: 400, content: []string{`"corrections"`, `slug`, `validation_correction_not_applied`}, check: refused},
		{name: "a correction of an attribute not applied", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","approvedFields":["attributes.Size"],"corrections":{"attributes.Color":"Navy"}}`,
			status: 400, content: []string{`attributes.Color`, `validation_correction_not_applied`}, check: refused},
		{name: "a correction of an unknown attribute", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","corrections":{"attributes.Weight":"1 kg"}}`,
			status: 400, content: []string{`attributes.Weight`, `validation_not_proposed`}, check: refused},
		{name: "a correction with a rejection", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"rejected","corrections":{"name":"Runner Max"}}`,
			status: 400, content: []string{`"corrections"`, `validation_correction_not_applied`}, check: refused},
		{name: "a corrected value too long", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","corrections":{"name":"` + longName + `"}}`,
			status: 400, content: []string{`"corrections"`, `\"name\"`, `validation_invalid_correction`}, check: refused},
		{name: "a corrected value with a control character", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","corrections":{"attributes.Color":"Na\u0000vy"}}`,
			status: 400, content: []string{`attributes.Color`, `validation_invalid_correction`}, check: refused},
		{name: "a corrected NUMBER attribute that is not a number", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","corrections":{"attributes.Size":"about 45"}}`,
			status: 400, content: []string{`attributes.Size`, `validation_invalid_correction`, `not a decimal number`}, check: refused},
		{name: "a corrected value of the wrong type", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","corrections":{"files":"https://docs.example/max.pdf"}}`,
			status: 400, content: []string{`files`, `validation_invalid_correction`}, check: refused},
		{name: "corrections that are not an object", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","corrections":"Navy"}`,
			status: 400, content: []string{`"corrections"`, `validation_not_object`}, check: refused},
		{name: "corrections that are a list", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","corrections":[{"name":"x"}]}`,
			status: 400, content: []string{`"corrections"`, `validation_not_object`}, check: refused},
		{name: "reasons per field", url: revFull, as: reviewerA,
			body: `{"status":"accepted","approvedFields":["name","attributes.Color"],` +
				`"fieldReasons":{"description":"inaccurate","attributes.Fit":"off_brand"}}`,
			before: setOrg("requireReason", true), status: 200,
			content: []string{`"fieldReasons":{`, `"attributes.Fit":"off_brand"`, `"reason":""`}},
		{name: "a rejection with reasons per field only, where a reason is required", url: revFull, as: reviewerA,
			body: `{"status":"rejected","fieldReasons":{"name":"duplicate"}}`, before: setOrg("requireReason", true), status: 200,
			content: []string{`"status":"rejected"`, `"fieldReasons":{"name":"duplicate"}`}},
		{name: "a reason for an applied field", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","approvedFields":["name"],"fieldReasons":{"name":"inaccurate"}}`,
			status: 400, content: []string{`"fieldReasons"`, `name`, `validation_reason_not_allowed`}, check: refused},
		{name: "a reason for an applied attribute", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"accepted","approvedFields":["attributes.Color"],"fieldReasons":{"attributes.Color":"inaccurate"}}`,
			status: 400, content: []string{`attributes.Color`, `validation_reason_not_allowed`}, check: refused},
		{name: "a reason outside the six", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"rejected","fieldReasons":{"name":"ugly"}}`,
			status: 400, content: []string{`"fieldReasons"`, `validation_invalid_reason`}, check: refused},
		{name: "a reason for an unknown attribute", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"rejected","fieldReasons":{"attributes.Weight":"other"}}`,
			status: 400, content: []string{`attributes.Weight`, `validation_not_proposed`}, check: refused},
		{name: "reasons per field that are not an object", url: revFull, as: reviewerA, before: snap,
			body:   `{"status":"rejected","fieldReasons":"inaccurate"}`,
			status: 400, content: []string{`"fieldReasons"`, `validation_not_object`}, check: refused},
		{name: "corrections without a decision", url: revFull, as: reviewerA, before: snap,
			body:   `{"corrections":{"name":"Runner Max"}}`,
			status: 400, content: []string{`"corrections"`, `validation_no_decision`}, check: refused},
		{name: "the service's attribute lists cannot be sent", url: revFull, as: reviewerA,
			body:   `{"status":"rejected","approvedAttributes":["Color"],"supersededAttributes":["Fit"]}`,
			status: 200, content: []string{`"approvedAttributes":null`, `"supersededAttributes":null`}},
	})
}

func TestFieldDecisionMultipart(t *testing.T) {
	f := fixture.Get(t)
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("@jsonPayload", `{"status":"accepted","approvedFields":["attributes.Color"],"corrections":{"attributes.Color":"Navy"}}`)
	_ = w.WriteField("fieldReasons", `{"name":"low_quality"}`)
	_ = w.Close()
	s := &tests.ApiScenario{Name: "multipart", Method: http.MethodPatch, URL: "/api/collections/revisions/records/" + revFull,
		Body: &body, ExpectedStatus: 200, ExpectedContent: []string{`"corrections":{"attributes.Color":"Navy"}`, `"fieldReasons":{"name":"low_quality"}`},
		TestAppFactory: func(tb testing.TB) *tests.TestApp {
			app := f.NewApp(tb)
			seedReview(tb, app, f)
			return app
		}}
	s.BeforeTestFunc = func(t testing.TB, app *tests.TestApp, _ *core.ServeEvent) {
		s.Headers = map[string]string{"Authorization": token(t, app, reviewerA), "Content-Type": w.FormDataContentType()}
	}
	s.AfterTestFunc = func(t testing.TB, app *tests.TestApp, _ *http.Response) {
		if got := attributeDetails(t, productOf(t, app, f.A, "SKU-1"))["Color"]; got != "Navy" {
			t.Errorf("Color %q", got)
		}
	}
	s.Test(t)

	bad := &tests.ApiScenario{Name: "multipart corrections that are not an object", Method: http.MethodPatch,
		URL: "/api/collections/revisions/records/" + revFull, ExpectedStatus: 400, ExpectedContent: []string{`"corrections"`, `validation_not_object`},
		TestAppFactory: s.TestAppFactory}
	var form bytes.Buffer
	w2 := multipart.NewWriter(&form)
	_ = w2.WriteField("status", "accepted")
	_ = w2.WriteField("corrections", "Navy")
	_ = w2.Close()
	bad.Body = &form
	bad.BeforeTestFunc = func(t testing.TB, app *tests.TestApp, _ *core.ServeEvent) {
		bad.Headers = map[string]string{"Authorization": token(t, app, reviewerA), "Content-Type": w2.FormDataContentType()}
	}
	bad.AfterTestFunc = func(t testing.TB, app *tests.TestApp, _ *http.Response) { pending(t, app, revFull) }
	bad.Test(t)
}

// mustID parses a record id.
func mustID(t testing.TB, id string) int64 {
	t.Helper()
	n, err := enrichment.ParseID(strings.TrimSpace(id))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
