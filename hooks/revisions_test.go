package hooks_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
	"github.com/pocketbase/pocketbase/tools/types"
)

// decidedSince checks that a revision was decided by who after start.
// who is "system" or the email of the superuser who decided, whose id
// reviewer holds.
func decidedSince(t testing.TB, app core.App, id, status, who string, start time.Time) {
	t.Helper()
	if who != "system" {
		su, err := app.FindAuthRecordByEmail(core.CollectionNameSuperusers, who)
		if err != nil {
			t.Fatalf("superuser %s: %v", who, err)
		}
		who = su.Id
	}
	r := revision(t, app, id)
	if r.GetString("status") != status || r.GetString("reviewer") != who {
		t.Errorf("revision %s: status %q reviewer %q, want %q %q", id, r.GetString("status"), r.GetString("reviewer"), status, who)
	}
	if at := r.GetDateTime("reviewedAt").Time(); at.Before(start.Add(-time.Second)) || at.After(clock.Now(app)) {
		t.Errorf("revision %s: reviewedAt %v, want the decision's time (after %v)", id, at, start)
	}
}

// pending checks that a revision is still undecided.
func pending(t testing.TB, app core.App, id string) {
	t.Helper()
	r := revision(t, app, id)
	if r.GetString("status") != enrichment.StatusPending || r.GetString("reviewer") != "" ||
		!r.GetDateTime("reviewedAt").IsZero() || len(r.GetStringSlice("approvedFields")) > 0 {
		t.Errorf("revision %s changed: %v", id, r.FieldsData())
	}
}

// snapshot keeps a product's stored fields for comparisons after a request.
func snapshot(into *map[string]any, t fixture.Tenant, sku string) func(testing.TB, *tests.TestApp) {
	return func(tb testing.TB, app *tests.TestApp) { *into = productOf(tb, app, t, sku).FieldsData() }
}

// changedFields lists the product fields that differ from a snapshot.
func changedFields(t testing.TB, before map[string]any, p *core.Record) []string {
	t.Helper()
	var out []string
	for name, v := range p.FieldsData() {
		if canonical(t, v) != canonical(t, before[name]) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func TestDecisionsBySuperuser(t *testing.T) {
	f := fixture.Get(t)
	start := clock.Wall()
	var full, partial, rejected map[string]any
	run(t, []call{
		{name: "accept everything proposed", url: revFull, as: "super", body: `{"status":"accepted"}`,
			before: snapshot(&full, f.A, "SKU-1"), status: 200,
			content: []string{`"status":"accepted"`, `"approvedFields":["name","slug","description","attributes","files"]`,
				`"reviewer":"superuser:` + fixture.SuperuserEmail + `"}`}, // the review state names who decided
			absent: []string{"@enrichmentDecider"},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				decidedSince(t, app, revFull, enrichment.StatusAccepted, fixture.SuperuserEmail, start)
				p := productOf(t, app, f.A, "SKU-1")
				if got := changedFields(t, full, p); !slices.Equal(got, []string{"attributes", "completeness", "description", "files", "gapRank", "gaps", "name", "slug", "updated"}) {
					t.Errorf("changed %v", got)
				}
				if p.GetString("name") != "Runner Pro" || p.GetString("slug") != "runner-pro" || p.GetString("description") != "A lighter running shoe." {
					t.Errorf("product %v", p.FieldsData())
				}
				if got := canonical(t, p.Get("files")); got != `["https://docs.example/runner-pro.pdf"]` {
					t.Errorf("files %s", got)
				}
				// merged by name: Color and Material keep their links, Fit has none in the template;
				// Size links by name, Sole takes its proposed option, Power's (of B) is dropped
				want := []enrichment.StoredAttribute{
					{Attribute: "Color", Detail: "Blue", OptionID: option(t, app, f.A, "Color")},
					{Attribute: "Material", Detail: "Suede", OptionID: option(t, app, f.A, "Material")},
					{Attribute: "Fit", Detail: "Narrow"},
					{Attribute: "Size", Detail: "44", OptionID: option(t, app, f.A, "Size")},
					{Attribute: "Sole", Detail: "Rubber", OptionID: option(t, app, f.A, "Material")},
					{Attribute: "Power", Detail: "900"},
				}
				if got, w := canonical(t, p.Get("attributes")), canonical(t, want); got != w {
					t.Errorf("attributes\n got %s\nwant %s", got, w)
				}
				if p.GetDateTime("updated").Time().Before(start) {
					t.Errorf("product updated %v, not moved", p.GetDateTime("updated"))
				}
			}},
		{name: "partial accept changes exactly the approved fields", url: revPartial, as: "super",
			body:   `{"status":"accepted","approvedFields":["slug"]}`,
			before: snapshot(&partial, f.A, "SKU-M"), status: 200, content: []string{`"approvedFields":["slug"]`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				p := productOf(t, app, f.A, "SKU-M")
				if got := changedFields(t, partial, p); !slices.Equal(got, []string{"slug", "updated"}) {
					t.Errorf("changed %v, want slug and updated", got)
				}
				if p.GetString("slug") != "trail-pro" {
					t.Errorf("slug %q", p.GetString("slug"))
				}
			}},
		{name: "reject leaves the product untouched", url: revFull, as: "super", body: `{"status":"rejected"}`,
			before: snapshot(&rejected, f.A, "SKU-1"), status: 200,
			content: []string{`"status":"rejected"`, `"approvedFields":[]`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				decidedSince(t, app, revFull, enrichment.StatusRejected, fixture.SuperuserEmail, start)
				if got := changedFields(t, rejected, productOf(t, app, f.A, "SKU-1")); len(got) > 0 {
					t.Errorf("product changed: %v", got)
				}
			}},
		{name: "forged reviewer and reviewedAt are ignored", url: revFull, as: "super",
			body:   `{"status":"rejected","reviewer":"mallory","reviewedAt":"2000-01-01 00:00:00.000Z"}`,
			status: 200, absent: []string{"mallory", "2000-01-01"},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				decidedSince(t, app, revFull, enrichment.StatusRejected, fixture.SuperuserEmail, start)
			}},
		{name: "staying pending is a no-op, forged fields included", url: revFull, as: "super",
			body:   `{"status":"pending","reviewer":"mallory","reviewedAt":"2000-01-01 00:00:00.000Z"}`,
			status: 200, content: []string{`"status":"pending"`, `"reviewer":""`, `"reviewedAt":""`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revFull) }},
	})
}

func TestDecisionRefusals(t *testing.T) {
	f := fixture.Get(t)
	stillPending := func(id string) func(testing.TB, *tests.TestApp, []byte) {
		return func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, id) }
	}
	final := func(id, status, body, was string) call {
		return call{name: status + " after " + was, url: id, as: "super", body: body, status: 400,
			content: []string{`"message":"This revision was already ` + was + `; a decision is final."`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				if r := revision(t, app, id); r.GetString("status") != was || r.GetString("reviewer") == "" {
					t.Errorf("revision %s changed: %v", id, r.FieldsData())
				}
			}}
	}
	calls := []call{
		final(revAccepted, "rejected", `{"status":"rejected"}`, "accepted"),
		final(revRejected, "accepted", `{"status":"accepted"}`, "rejected"),
		final(revAccepted, "accepted", `{"status":"accepted"}`, "accepted"),
		final(revAccepted, "pending", `{"status":"pending"}`, "accepted"),
		{name: "approved field not proposed", url: revPartial, as: "super",
			body: `{"status":"accepted","approvedFields":["name","description"]}`, status: 400,
			content: []string{`Approved field \"description\" was not proposed.`, `"approvedFields":{"code":"validation_not_proposed"`},
			check:   stillPending(revPartial)},
		{name: "approved fields with reject", url: revFull, as: "super",
			body: `{"status":"rejected","approvedFields":["name"]}`, status: 400,
			content: []string{`"approvedFields":{`}, check: stillPending(revFull)},
		{name: "approved fields while pending", url: revFull, as: "super",
			body: `{"approvedFields":["name"]}`, status: 400, content: []string{`"approvedFields":{`}, check: stillPending(revFull)},
		{name: "unknown status", url: revFull, as: "super", body: `{"status":"maybe"}`, status: 400,
			content: []string{`"status":{`}, check: stillPending(revFull)},
		{name: "nothing proposed cannot be accepted", url: revEmpty, as: "super", body: `{"status":"accepted"}`, status: 400,
			content: []string{"proposes no fields"}, check: stillPending(revEmpty)},
		{name: "atomic: a failing product save leaves revision and product as they were", url: revTooLong, as: "super",
			body: `{"status":"accepted"}`, status: 400,
			content: []string{`"message":"The approved fields cannot be applied to the product."`, `"product":{"name":{"code":"validation_max_text_constraint"`},
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				pending(t, app, revTooLong)
				if p := productOf(t, app, f.A, "SKU-1"); p.GetString("slug") != "runner" || p.GetString("updated") != fixture.UpdatedOld {
					t.Errorf("product changed: slug %q updated %q", p.GetString("slug"), p.GetString("updated"))
				}
			}},
	}
	for field, value := range map[string]string{
		"proposed": `{"name":"Other"}`, "product": `"` + store.FormatID(f.A.Products["SKU-NEW"]) + `"`,
		"organization": `"` + string(f.B.Org) + `"`, "sku": `"SKU-NEW"`, "confidence": `12`,
	} {
		calls = append(calls, call{name: "changing " + field, url: revFull, as: "super",
			body: `{"status":"accepted","` + field + `":` + value + `}`, status: 400,
			content: []string{"Only status, approvedFields, reason, comment, corrections and fieldReasons of a revision can be changed, not " + field + ".",
				`"` + field + `":{"code":"validation_read_only"`},
			check: stillPending(revFull)})
	}
	run(t, calls)
}

func TestDecisionOnVanishedProduct(t *testing.T) {
	f := fixture.Get(t)
	deactivate := func(t testing.TB, app *tests.TestApp) {
		p := productOf(t, app, f.A, "SKU-NEW")
		p.Set("active", false)
		if err := app.Save(p); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(t testing.TB, app *tests.TestApp) {
		// note: PocketBase clears the relation of every revision, decided ones too
		if err := app.Delete(productOf(t, app, f.A, "SKU-NEW")); err != nil {
			t.Fatal(err)
		}
		if r := revision(t, app, revAccepted); r.GetString("product") != "" || r.GetString("status") != enrichment.StatusAccepted {
			t.Errorf("accepted revision after product delete: %v", r.FieldsData())
		}
	}
	gone := `"message":"The product of this revision no longer exists or is inactive; it can only be rejected."`
	run(t, []call{
		{name: "accept, product inactive", url: revNew, as: "super", body: `{"status":"accepted"}`, before: deactivate,
			status: 400, content: []string{gone}, check: func(t testing.TB, app *tests.TestApp, _ []byte) { pending(t, app, revNew) }},
		{name: "reject, product inactive", url: revNew, as: "super", body: `{"status":"rejected"}`, before: deactivate,
			status: 200, content: []string{`"status":"rejected"`}},
		{name: "accept, product deleted", url: revNew, as: "super", body: `{"status":"accepted"}`, before: remove,
			status: 400, content: []string{gone}},
		{name: "reject, product deleted", url: revNew, as: "super", body: `{"status":"rejected"}`, before: remove,
			status: 200, content: []string{`"status":"rejected"`, `"product":""`}},
	})
}

// TestDecisionFromGo decides through app.Save, as Go code would.
func TestDecisionFromGo(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	defer app.Cleanup()
	seedReview(t, app, f)
	start := clock.Wall()

	r := revision(t, app, revNew)
	r.Set("status", enrichment.StatusAccepted)
	r.Set("reviewer", "forged")
	if err := app.Save(r); err != nil {
		t.Fatal(err)
	}
	decidedSince(t, app, revNew, enrichment.StatusAccepted, "system", start)
	if got := revision(t, app, revNew).GetStringSlice("approvedFields"); !slices.Equal(got, []string{"name"}) {
		t.Errorf("approvedFields %v", got)
	}
	if p := productOf(t, app, f.A, "SKU-NEW"); p.GetString("name") != "Newest Pro" {
		t.Errorf("product name %q", p.GetString("name"))
	}

	// saving it unchanged is allowed; changing it is not
	r = revision(t, app, revNew)
	if err := app.Save(r); err != nil {
		t.Errorf("unchanged save of a decided revision: %v", err)
	}
	r.Set("status", enrichment.StatusRejected)
	if err := app.Save(r); err == nil {
		t.Error("accepted → rejected from Go was allowed")
	}
	r = revision(t, app, revFull)
	r.Set("reviewedAt", types.NowDateTime())
	r.Set("sku", "OTHER")
	if err := app.Save(r); err == nil {
		t.Error("changing sku from Go was allowed")
	}
	pending(t, app, revFull)

	// a revision whose product is another organization's is never applied
	if _, err := app.DB().NewQuery("UPDATE revisions SET product = {:p} WHERE id = {:id}").
		Bind(dbx.Params{"p": store.FormatID(f.B.Products["B-ONLY"]), "id": revFull}).Execute(); err != nil {
		t.Fatal(err)
	}
	r = revision(t, app, revFull)
	r.Set("status", enrichment.StatusAccepted)
	if err := app.Save(r); err == nil || !strings.Contains(err.Error(), "no longer exists or is inactive") {
		t.Errorf("accepting onto another organization's product: %v", err)
	}
	if p := productOf(t, app, f.B, "B-ONLY"); p.GetString("name") != "Beta only" {
		t.Errorf("B's product changed: %q", p.GetString("name"))
	}
}

// TestDecisionRequestEvents checks that a decision fires the request and
// record hooks once each: the revision's (its product is written as a set
// of decisions writes it, store/product_values.go).
func TestDecisionRequestEvents(t *testing.T) {
	f := fixture.Get(t)
	s := &tests.ApiScenario{Method: http.MethodPatch, URL: "/api/collections/revisions/records/" + revNew,
		ExpectedStatus: 200, ExpectedContent: []string{`"status":"accepted"`},
		ExpectedEvents: map[string]int{"OnRecordUpdateRequest": 1, "OnRecordUpdate": 1, "OnRecordAfterUpdateSuccess": 1}}
	s.TestAppFactory = func(tb testing.TB) *tests.TestApp {
		app := f.NewApp(tb)
		seedReview(tb, app, f)
		s.Headers = map[string]string{"Authorization": token(tb, app, "super")}
		s.Body = strings.NewReader(`{"status":"accepted"}`)
		return app
	}
	s.Test(t)
}

// TestDashboardRoundTrip saves a revision the way an edit form does: the
// whole record as read, with only the status changed, then once more.
func TestDashboardRoundTrip(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	defer app.Cleanup()
	seedReview(t, app, f)
	h := fixture.Serve(t, app)
	auth := token(t, app, "super")
	url := "/api/collections/revisions/records/" + revFull

	res := fixture.Send(h, http.MethodGet, url, "Authorization", auth, "")
	if res.Code != 200 {
		t.Fatalf("GET %d %s", res.Code, res.Body)
	}
	rec := decode[map[string]any](t, res.Body.Bytes())
	rec["status"] = enrichment.StatusAccepted
	rec["approvedFields"] = []string{"name", "files"}
	body := canonical(t, rec)
	if res := fixture.Send(h, http.MethodPatch, url, "Authorization", auth, body); res.Code != 200 {
		t.Fatalf("PATCH whole record: %d %s", res.Code, res.Body)
	}
	if p := productOf(t, app, f.A, "SKU-1"); p.GetString("name") != "Runner Pro" || p.GetString("slug") != "runner" {
		t.Errorf("product name %q slug %q", p.GetString("name"), p.GetString("slug"))
	}
	if res := fixture.Send(h, http.MethodPatch, url, "Authorization", auth, body); res.Code != 400 {
		t.Errorf("second PATCH: %d %s", res.Code, res.Body)
	}
	if got := revision(t, app, revFull).GetStringSlice("approvedFields"); !slices.Equal(got, []string{"name", "files"}) {
		t.Errorf("approvedFields %v", got)
	}
}
