package routes_test

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// The queue's triage filters: by proposed field or attribute (still
// pending), brand, category, competition, age, issues and text in the SKU
// or the product's name; they combine, and bad values are 400 naming the
// parameter. Another organization's revisions never match.
func TestQueueTriage(t *testing.T) {
	f, app, h := served(t)
	clock := stopClock(app)
	reviewer := fixture.ReviewerToken(t, app, string(f.A.Org))
	fixture.ReviewerToken(t, app, string(f.B.Org))

	// runner: description and Color, Acme, categories Shoes and Running
	runner := submitted(t, h, f.A.Keys["both"], submitURL,
		`{"sku":"SKU-1","description":"Lighter.","attributes":[{"attribute":"Color","detail":"Navy"}]}`)[0]
	// trail: a name from two clients (they compete), Acme
	trail := submitted(t, h, f.A.Keys["both"], submitURL, `{"sku":"SKU-M","name":"Trail Two"}`)[0]
	rival := submitted(t, h, f.A.Keys["submit"], submitURL, `{"sku":"SKU-M","name":"Trail Too"}`)[0]
	// newest: a name, and a slug the checks refuse (an issue), no brand
	newest := submitted(t, h, f.A.Keys["both"], submitURL, `{"sku":"SKU-NEW","name":"Newer","slug":"Not A Slug"}`)[0]
	// a later Color from the same client supersedes runner's Color only
	recolor := submitted(t, h, f.A.Keys["both"], submitURL, `{"sku":"SKU-1","attributes":[{"attribute":"Color","detail":"Green"}]}`)[0]
	// gone: a revision whose product was deleted since
	gone := submitted(t, h, f.A.Keys["both"], submitURL, `{"sku":"SKU-M-BLUE","name":"Blue Two"}`)[0]
	blue, err := app.FindRecordById("products", store.FormatID(f.A.Products["SKU-M-BLUE"]))
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Delete(blue); err != nil {
		t.Fatal(err)
	}
	// B has the same SKUs and names
	bRev := submitted(t, h, f.B.Keys["both"], submitURL, `{"sku":"SKU-1","description":"B's."}`)[0]
	for i, id := range []int64{runner, trail, rival, newest, recolor, bRev, gone} {
		if id == 0 {
			t.Fatalf("proposal %d was not stored", i)
		}
	}
	// runner and trail were submitted 10 days ago
	run := anotherProcess(t, app)
	old := store.FormatTime(clock.now().Add(-10 * 24 * time.Hour))
	run("UPDATE revisions SET created = ? WHERE id IN (?, ?)", old, store.FormatID(runner), store.FormatID(trail))
	acme := brandOf(t, app, f.A, "SKU-1")

	item := func(id int64) string { return `{"id":"` + store.FormatID(id) + `","sku"` }
	all := []int64{runner, trail, rival, newest, recolor, bRev, gone}
	cases := []struct {
		name, query string
		want        []int64
	}{
		{"field description", "field=description", []int64{runner}},
		{"field name", "field=name", []int64{trail, rival, newest, gone}},
		{"field attributes.Color: the superseded one left out", "field=attributes.Color", []int64{recolor}},
		{"field attributes", "field=attributes", []int64{recolor}},
		{"field attributes.Size: none", "field=attributes.Size", nil},
		{"brand Acme", "brand=" + acme, []int64{runner, trail, rival, recolor}},
		{"category running, letter case aside", "category=running", []int64{runner, recolor}},
		{"competing", "competing=true", []int64{trail, rival}},
		{"not competing", "competing=false", []int64{runner, newest, recolor, gone}},
		{"older than 7 days", "olderThan=7", []int64{runner, trail}},
		{"older than 11 days", "olderThan=11", nil},
		{"with issues", "issues=true", []int64{newest}},
		{"without issues", "issues=false", []int64{runner, trail, rival, recolor, gone}},
		{"text in the product's name", "q=trail", []int64{trail, rival}},
		{"text in the SKU", "q=sku-n", []int64{newest}},
		{"a LIKE wildcard is text", "q=%25", nil},
		{"text in the SKU of a deleted product", "q=m-blue", []int64{gone}},
		{"combined: competing Acme names older than 7 days", "competing=true&brand=" + acme + "&field=name&olderThan=7", []int64{trail}},
		{"combined with the band and the client", "field=name&band=none&client=" + store.FormatID(f.A.Clients["submit"]), []int64{rival}},
		{"text and field", "q=trail&field=description", nil},
	}
	for _, c := range cases {
		res := requestAuth(h, "GET", queueURL+"?pageSize=50&"+c.query, reviewer, "")
		if res.Code != 200 {
			t.Errorf("%s: %d %s", c.name, res.Code, res.Body)
			continue
		}
		body := res.Body.String()
		for _, id := range all {
			want := false
			for _, w := range c.want {
				want = want || w == id
			}
			if got := strings.Contains(body, item(id)); got != want {
				t.Errorf("%s: revision %d listed %v, want %v", c.name, id, got, want)
			}
		}
		if !strings.Contains(body, `"totalElements":`+itoa(len(c.want))+`,`) {
			t.Errorf("%s: totalElements is not %d: %s", c.name, len(c.want), body)
		}
	}

	checkReviewerCases(t, h, []reviewerCase{
		{name: "an unknown field", url: queueURL + "?field=price", token: reviewer, status: 400, want: []string{`"field":{"code":"validation_in_invalid"`}},
		{name: "a field's part that is no attribute", url: queueURL + "?field=name.x", token: reviewer, status: 400, want: []string{`"field":{"code":"validation_in_invalid"`}},
		{name: "an attribute without a name", url: queueURL + "?field=attributes.", token: reviewer, status: 400, want: []string{`"field":{"code":"validation_invalid_attribute"`}},
		{name: "a bad brand", url: queueURL + "?brand=acme", token: reviewer, status: 400, want: []string{`"brand":{"code":"validation_invalid_id"`}},
		{name: "a long category", url: queueURL + "?category=" + strings.Repeat("c", 201), token: reviewer, status: 400, want: []string{`"category":{"code":"validation_length_too_long"`}},
		{name: "a long text", url: queueURL + "?q=" + strings.Repeat("q", 201), token: reviewer, status: 400, want: []string{`"q":{"code":"validation_length_too_long"`}},
		{name: "competing not a boolean", url: queueURL + "?competing=yes", token: reviewer, status: 400, want: []string{`"competing":{"code":"validation_invalid_bool"`}},
		{name: "issues empty", url: queueURL + "?issues=", token: reviewer, status: 400, want: []string{`"issues":{"code":"validation_invalid_bool"`}},
		{name: "olderThan negative", url: queueURL + "?olderThan=-1", token: reviewer, status: 400, want: []string{`"olderThan":{"code":"validation_invalid_days"`}},
		{name: "olderThan not a number", url: queueURL + "?olderThan=" + url.QueryEscape("1.5"), token: reviewer, status: 400, want: []string{`"olderThan":{"code":"validation_invalid_days"`}},
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// brandOf is the brand id of tenant's product with that SKU.
func brandOf(t testing.TB, app core.App, tenant fixture.Tenant, sku string) string {
	t.Helper()
	p, err := app.FindFirstRecordByFilter("products", "organization = {:org} && sku = {:sku}", dbx.Params{"org": string(tenant.Org), "sku": sku})
	if err != nil || p.GetString("brand") == "" {
		t.Fatalf("brand of %s: %v", sku, err)
	}
	return p.GetString("brand")
}
