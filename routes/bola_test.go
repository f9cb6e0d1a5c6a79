package routes_test

import (
	"encoding/json/v2"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// bolaCollections are every collection a reviewer's token could reach.
var bolaCollections = []string{"revisions", "products", "attribute_templates", "attribute_options",
	"brands", "api_clients", "organizations", "reviewers"}

// tenantView is one organization as the isolation matrix sees it.
type tenantView struct {
	label    string
	t        fixture.Tenant
	key      string              // both scopes
	token    string              // a reviewer of the organization
	ids      map[string][]string // record ids by collection
	only     string              // a SKU no other organization has
	markers  []string            // texts only this organization's data holds
	crafted  string              // a revision of this organization naming the other's product
	ownRevID string              // a revision this organization's reviewer may decide
}

// seedTenantView adds what the matrix needs to tenant t of app: a brand, a
// reviewer, a submitted revision and a crafted cross-tenant one.
func seedTenantView(t *testing.T, app core.App, h http.Handler, label string, ten fixture.Tenant, only string, markers ...string) *tenantView {
	t.Helper()
	v := &tenantView{label: label, t: ten, key: ten.Keys["both"], only: only, markers: markers}
	save := func(collection string, fields map[string]any) *core.Record {
		c, err := app.FindCollectionByNameOrId(collection)
		if err != nil {
			t.Fatal(err)
		}
		r := core.NewRecord(c)
		for k, val := range fields {
			r.Set(k, val)
		}
		if err := app.Save(r); err != nil {
			t.Fatalf("save %s: %v", collection, err)
		}
		return r
	}
	save("brands", map[string]any{"organization": string(ten.Org), "name": label + "Brand"})
	email := "bola-" + strings.ToLower(label) + "@example.com"
	reviewer := save("reviewers", map[string]any{"organization": string(ten.Org), "email": email, "password": "reviewer-password"})
	token, err := reviewer.NewAuthToken()
	if err != nil {
		t.Fatal(err)
	}
	v.token, v.markers = token, append(v.markers, email, label+"Brand", label+"-secret-name")
	res := request(h, http.MethodPost, submitURL, v.key, fmt.Sprintf(`{"items":[{"sku":%q,"name":"%s-secret-name"}]}`, only, label))
	if res.Code != 200 || !strings.Contains(res.Body.String(), `"status":"CREATED"`) {
		t.Fatalf("%s submits: %d %s", label, res.Code, res.Body)
	}
	v.ownRevID = fmt.Sprint(*decode[[]result](t, res.Body.Bytes())[0].RevisionID)
	return v
}

// loadIDs records the ids of every collection's records of v's organization.
func (v *tenantView) loadIDs(t *testing.T, app core.App) {
	t.Helper()
	v.ids = map[string][]string{"organizations": {string(v.t.Org)}}
	for _, c := range bolaCollections[:len(bolaCollections)-2] {
		var ids []string
		if err := app.DB().Select("id").From(c).Where(dbx.HashExp{"organization": string(v.t.Org)}).Column(&ids); err != nil {
			t.Fatal(err)
		}
		v.ids[c] = ids
	}
	var rev []string
	if err := app.DB().Select("id").From("reviewers").Where(dbx.HashExp{"organization": string(v.t.Org)}).Column(&rev); err != nil {
		t.Fatal(err)
	}
	v.ids["reviewers"] = rev
}

// craft stores a revision of v's organization whose product is other's: a
// state the API cannot produce, to see what a relation to another tenant shows.
func (v *tenantView) craft(t *testing.T, app core.App, other *tenantView) {
	t.Helper()
	c, _ := app.FindCollectionByNameOrId("revisions")
	r := core.NewRecord(c)
	r.Load(map[string]any{"organization": string(v.t.Org), "apiClient": store.FormatID(v.t.Clients["read"]),
		"product": store.FormatID(other.t.Products[other.only]), "sku": other.only, "status": "pending",
		"proposed": map[string]any{"name": "crafted"}, "externalSubmissionId": "crafted"})
	if err := app.Save(r); err != nil {
		t.Fatal(err)
	}
	v.crafted = r.Id
}

// TestTenantIsolation is the OWASP API1 matrix: for each organization, every
// enrichment endpoint with its key and every collection with its reviewer's
// token, given the other organization's SKUs, ids and filters, shows nothing
// of the other organization and changes nothing of it.
func TestTenantIsolation(t *testing.T) {
	f, app, h := served(t)
	a := seedTenantView(t, app, h, "Alpha", f.A, "SKU-M", "Alpha Shoes", "A light running shoe", "Acme", "Trail Red", "Material")
	b := seedTenantView(t, app, h, "Beta", f.B, "B-ONLY", "Beta Tools", "Beta drill", "Beta only", "Drills", "Power")
	a.loadIDs(t, app)
	b.loadIDs(t, app)

	cases := 0
	for _, pair := range [][2]*tenantView{{a, b}, {b, a}} {
		self, other := pair[0], pair[1]
		t.Run(self.label+" against "+other.label, func(t *testing.T) {
			cases += apiIsolation(t, app, h, self, other)
			cases += recordsIsolation(t, app, h, self, other)
		})
	}
	a.craft(t, app, b)
	b.craft(t, app, a)
	for _, pair := range [][2]*tenantView{{a, b}, {b, a}} {
		t.Run(pair[0].label+" expands "+pair[1].label, func(t *testing.T) {
			cases += craftedIsolation(t, h, pair[0], pair[1])
		})
	}
	t.Logf("tenant isolation: %d cases, both directions", cases)
}

// clean fails when body shows any of other's markers or record ids.
func clean(t *testing.T, what string, body []byte, other *tenantView, idFields map[string]string) {
	t.Helper()
	for _, m := range other.markers {
		if strings.Contains(string(body), m) {
			t.Errorf("%s: shows %q of %s: %s", what, m, other.label, trim(body))
		}
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return
	}
	walk(v, "", func(parent, key string, val any) {
		c, ok := idFields[parent+"."+key]
		if !ok {
			c, ok = idFields[key]
		}
		if ok && slices.Contains(other.ids[c], fmt.Sprint(val)) {
			t.Errorf("%s: %s.%s %v is %s's %s: %s", what, parent, key, val, other.label, c, trim(body))
		}
	})
}

// walk calls fn for each object member in v, at any depth, with the name of
// the member holding the object (or its array).
func walk(v any, parent string, fn func(parent, key string, val any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			fn(parent, k, val)
			walk(val, k, fn)
		}
	case []any:
		for _, val := range x {
			walk(val, parent, fn)
		}
	}
}

func trim(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// The id members of the answers, by "holder.member" or "member", with the
// collection they name.
var (
	productIDs = map[string]string{"items.id": "products", ".id": "products", "variants.id": "products",
		"brand.id": "brands", "optionId": "attribute_options", "attributeTemplateId": "attribute_templates"}
	templateIDs = map[string]string{".id": "attribute_templates", "options.id": "attribute_options"}
	revisionIDs = map[string]string{"items.id": "revisions", "productId": "products"}
	recordIDs   = map[string]string{"organization": "organizations", "product": "products", "apiClient": "api_clients",
		"template": "attribute_templates", "attributeTemplate": "attribute_templates", "brand": "brands",
		"variantMaster": "products", "product.id": "products", "organization.id": "organizations",
		"apiClient.id": "api_clients", "template.id": "attribute_templates", "attributeTemplate.id": "attribute_templates",
		"brand.id": "brands", "variantMaster.id": "products"}
)

// apiIsolation checks the enrichment endpoints with self's key; it returns
// the number of cases.
func apiIsolation(t *testing.T, app core.App, h http.Handler, self, other *tenantView) int {
	otherProduct := store.FormatID(other.t.Products[other.only])
	otherOption := other.ids["attribute_options"][0]
	gets := []string{
		exportURL + "?pageSize=500",
		exportURL + "?pageSize=500&organization=" + string(other.t.Org) + "&org=" + string(other.t.Org),
		exportURL + "?modifiedSince=0&pageSize=500",
		exportURL + "/" + otherProduct,
		"/api/enrichment/attribute-templates",
		"/api/enrichment/attribute-templates?organization=" + string(other.t.Org),
		"/api/enrichment/acceptance-rate",
		"/api/enrichment/acceptance-rate?organization=" + string(other.t.Org),
		revisionsURL,
		revisionsURL + "?sku=" + other.only,
		revisionsURL + "?sku=SKU-1&pageSize=500",
	}
	for _, u := range gets {
		res := request(h, http.MethodGet, u, self.key, "")
		if res.Code != 200 && res.Code != 404 {
			t.Errorf("GET %s: %d %s", u, res.Code, res.Body)
		}
		ids := productIDs
		switch {
		case strings.HasPrefix(u, revisionsURL):
			ids = revisionIDs
		case strings.Contains(u, "templates"):
			ids = templateIDs
		}
		clean(t, "GET "+u, res.Body.Bytes(), other, ids)
	}
	if res := request(h, http.MethodGet, revisionsURL+"?sku="+other.only, self.key, ""); !strings.Contains(res.Body.String(), `"totalElements":0`) {
		t.Errorf("%s's revisions filtered by %s's SKU %s: %s", self.label, other.label, other.only, res.Body)
	}
	var own int
	_ = app.DB().Select("COUNT(*)").From("revisions").Where(dbx.HashExp{"apiClient": store.FormatID(self.t.Clients["both"])}).Row(&own)
	if res := request(h, http.MethodGet, "/api/enrichment/acceptance-rate", self.key, ""); !strings.Contains(res.Body.String(), fmt.Sprintf(`"totalSubmitted":%d,`, own)) {
		t.Errorf("%s's metrics count other revisions than its own %d: %s", self.label, own, res.Body)
	}

	lookups := []string{
		fmt.Sprintf(`{"skus":[%q,"SKU-1"]}`, other.only),
		fmt.Sprintf(`{"skus":[%q],"organization":%q}`, other.only, other.t.Org),
	}
	for _, body := range lookups {
		res := request(h, http.MethodPost, lookupURL, self.key, body)
		clean(t, "lookup "+body, res.Body.Bytes(), other, productIDs)
		// note: an organization member is undefined: refused, naming it
		refused := res.Code == 400 && strings.Contains(res.Body.String(), `"organization":{"code":"validation_unknown_member"`)
		if strings.Contains(res.Body.String(), `"sku":"`+other.only+`"`) || (res.Code != 200 && !refused) {
			t.Errorf("lookup %s: %d %s", body, res.Code, res.Body)
		}
	}

	before := countWhere(t, app, "revisions", dbx.HashExp{"product": otherProduct})
	sub := fmt.Sprintf(`{"items":[{"sku":%q,"name":"x"},{"sku":"SKU-1","name":"y","organization":%q,
		"attributes":[{"attribute":"Wattage","detail":"9","option":{"optionId":%s}}]}]}`, other.only, other.t.Org, otherOption)
	res := request(h, http.MethodPost, submitURL, self.key, sub)
	got := decode[[]result](t, res.Body.Bytes())
	if res.Code != 200 || got[0].Status != "UNMATCHED" || got[0].ProductID != nil ||
		got[1].ProductID == nil || *got[1].ProductID != self.t.Products["SKU-1"] {
		t.Errorf("submission naming %s's SKUs: %d %s", other.label, res.Code, res.Body)
	}
	if after := countWhere(t, app, "revisions", dbx.HashExp{"product": otherProduct}); after != before {
		t.Errorf("submission by %s added %d revisions on %s's product", self.label, after-before, other.label)
	}
	if got[1].RevisionID != nil {
		rec, err := app.FindRecordById("revisions", fmt.Sprint(*got[1].RevisionID))
		if err != nil || strings.Contains(rec.GetString("proposed"), `"optionId":`+otherOption) || rec.GetString("organization") != string(self.t.Org) {
			t.Errorf("revision %v links %s's option %s: %v", *got[1].RevisionID, other.label, otherOption, rec)
		}
	}
	return len(gets) + len(lookups) + 3
}

func countWhere(t *testing.T, app core.App, collection string, where dbx.Expression) int {
	t.Helper()
	var n int
	if err := app.DB().Select("COUNT(*)").From(collection).Where(where).Row(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// recordsIsolation checks the records API with self's reviewer token; it
// returns the number of cases.
func recordsIsolation(t *testing.T, app core.App, h http.Handler, self, other *tenantView) int {
	cases := 0
	call := func(method, u, body string) (int, []byte) {
		cases++
		res := requestAuth(h, method, u, self.token, body)
		return res.Code, res.Body.Bytes()
	}
	q := url.QueryEscape
	for _, c := range bolaCollections {
		base := "/api/collections/" + c + "/records"
		ids := maps.Clone(recordIDs)
		ids["items.id"], ids[".id"] = c, c
		lists := []string{"", "?perPage=500", "?filter=" + q("organization!='x'"), "?filter=" + q("organization='"+string(other.t.Org)+"'"),
			"?filter=" + q("@collection.products.sku='"+other.only+"'"), "?filter=" + q("id='"+other.ids[c][0]+"'"),
			"?expand=organization,product,apiClient,template,attributeTemplate,brand,variantMaster"}
		for _, l := range lists {
			code, body := call(http.MethodGet, base+l, "")
			if code != 200 && code != 403 && code != 400 {
				t.Errorf("list %s%s: %d %s", c, l, code, trim(body))
			}
			clean(t, "list "+c+l, body, other, ids)
		}
		// an oracle: a filter on the other tenant's data must not change the answer
		_, hit := call(http.MethodGet, base+"?skipTotal=0&filter="+q("@collection.products.sku='"+other.only+"'"), "")
		_, miss := call(http.MethodGet, base+"?skipTotal=0&filter="+q("@collection.products.sku='NO-SUCH-SKU'"), "")
		if string(hit) != string(miss) {
			t.Errorf("%s: filtering on %s's SKU %s answers differently from an unknown SKU:\n%s\n%s", c, other.label, other.only, trim(hit), trim(miss))
		}
		for _, id := range other.ids[c][:min(3, len(other.ids[c]))] {
			if code, body := call(http.MethodGet, base+"/"+id+"?expand=organization,product", ""); code != 404 {
				t.Errorf("view %s's %s %s: %d %s", other.label, c, id, code, trim(body))
			}
		}
		id := other.ids[c][0]
		before, _ := app.FindRecordById(c, id)
		for _, m := range []struct{ method, body string }{
			{http.MethodPatch, `{"name":"pwned","status":"rejected","organization":"` + string(self.t.Org) + `"}`},
			{http.MethodDelete, ""},
		} {
			if code, body := call(m.method, base+"/"+id, m.body); code != 404 && code != 403 {
				t.Errorf("%s %s's %s %s: %d %s", m.method, other.label, c, id, code, trim(body))
			}
		}
		if after, err := app.FindRecordById(c, id); err != nil || before == nil ||
			fmt.Sprint(after.FieldsData()) != fmt.Sprint(before.FieldsData()) {
			t.Errorf("%s's %s %s changed by %s's reviewer: %v", other.label, c, id, self.label, err)
		}
		n := countWhere(t, app, c, dbx.NewExp("1=1"))
		body := `{"organization":"` + string(self.t.Org) + `","name":"new","sku":"NEW","status":"pending","email":"n@example.com",` +
			`"password":"1234567890","passwordConfirm":"1234567890","keyHash":"` + strings.Repeat("a", 64) + `"}`
		if code, res := call(http.MethodPost, base, body); code < 400 || code >= 500 {
			t.Errorf("%s's reviewer creates a %s record: %d %s", self.label, c, code, trim(res))
		}
		if countWhere(t, app, c, dbx.NewExp("1=1")) != n {
			t.Errorf("%s's reviewer added a %s record", self.label, c)
		}
	}

	// a reviewer decides, but moves nothing to another organization
	own := "/api/collections/revisions/records/" + self.ownRevID
	if code, body := call(http.MethodPatch, own, `{"organization":"`+string(other.t.Org)+`"}`); code != 400 {
		t.Errorf("move %s's revision to %s: %d %s", self.label, other.label, code, trim(body))
	}
	if code, body := call(http.MethodPatch, own, `{"status":"accepted","product":"`+store.FormatID(other.t.Products[other.only])+`"}`); code != 400 {
		t.Errorf("point %s's revision at %s's product: %d %s", self.label, other.label, code, trim(body))
	}
	if rec, _ := app.FindRecordById("revisions", self.ownRevID); rec == nil || rec.GetString("status") != "pending" ||
		rec.GetString("organization") != string(self.t.Org) {
		t.Errorf("%s's revision after the refused updates: %v", self.label, rec)
	}
	return cases
}

// craftedIsolation checks that a relation of self's revision to other's
// product is neither expanded nor usable in a filter; it returns the number
// of cases.
func craftedIsolation(t *testing.T, h http.Handler, self, other *tenantView) int {
	cases := 0
	call := func(method, u, body string) (int, []byte) {
		cases++
		res := requestAuth(h, method, u, self.token, body)
		return res.Code, res.Body.Bytes()
	}
	q := url.QueryEscape
	// a relation of self's own revision to other's product is not followed
	expanded := func(what string, code int, body []byte) {
		t.Helper()
		var l struct{ Items []map[string]any }
		if code != 200 || json.Unmarshal(body, &l) != nil {
			t.Errorf("%s: %d %s", what, code, trim(body))
		}
		if len(l.Items) == 0 { // a view
			_ = json.Unmarshal(body, &l.Items)
			var one map[string]any
			_ = json.Unmarshal(body, &one)
			l.Items = append(l.Items, one)
		}
		for _, it := range l.Items {
			if ex, _ := it["expand"].(map[string]any); it["id"] == self.crafted && ex["product"] != nil {
				t.Errorf("%s: %s's product expanded for %s: %s", what, other.label, self.label, trim(body))
			}
		}
		clean(t, what, body, other, map[string]string{"organization": "organizations", "apiClient": "api_clients",
			"items.id": "revisions", ".id": "revisions"})
	}
	revisions := "/api/collections/revisions/records"
	for _, u := range []string{
		revisions + "/" + self.crafted + "?expand=product,product.brand,product.organization,apiClient",
		revisions + "?expand=product", revisions + "?expand=product.organization&filter=" + q("externalSubmissionId='crafted'"),
	} {
		code, body := call(http.MethodGet, u, "")
		expanded("GET "+u, code, body)
	}
	// nor can a filter through it tell anything of the other product
	for _, f := range []string{"product.sku='" + other.only + "'", "product.organization='" + string(other.t.Org) + "'",
		"product.name!=''", "product.active=true"} { // note: product.id is the revision's own field
		_, hit := call(http.MethodGet, revisions+"?filter="+q("id='"+self.crafted+"' && "+f), "")
		_, miss := call(http.MethodGet, revisions+"?filter="+q("id='"+self.crafted+"' && product.sku='NO-SUCH-SKU'"), "")
		if string(hit) != string(miss) {
			t.Errorf("filter %s through %s's revision answers differently from a miss:\n%s\n%s", f, self.label, trim(hit), trim(miss))
		}
	}
	return cases
}
