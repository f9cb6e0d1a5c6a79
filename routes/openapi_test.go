package routes_test

import (
	"encoding/base64"
	"fmt"
	"maps"
	"math"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/catalog-enrichment/enrichment/webhooks"
	"github.com/pocketbase/pocketbase/core"
)

const openapiURL = "/api/enrichment/openapi.json"

// oaDoc is the served OpenAPI document as plain JSON values, with a small
// JSON Schema validator for the keywords the document uses.
type oaDoc map[string]any

// oaKeywords are the keywords validate understands, then annotations it
// may ignore; the document may use no other (TestOpenAPIDocument).
var oaKeywords = []string{"$ref", "type", "enum", "properties", "required", "additionalProperties", "items", "anyOf",
	"minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength", "pattern",
	"description", "format", "default", "title", "examples"}

// oaLoad fetches the document from the server, without a key.
func oaLoad(t testing.TB, h http.Handler) oaDoc {
	t.Helper()
	r := request(h, http.MethodGet, openapiURL, "", "")
	if r.Code != 200 || r.Header().Get("Content-Type") != "application/json" || r.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("GET %s: %d %v", openapiURL, r.Code, r.Header())
	}
	return decode[oaDoc](t, r.Body.Bytes())
}

// ref resolves a local reference such as #/components/schemas/Product.
func (d oaDoc) ref(ref string) map[string]any {
	var node any = map[string]any(d)
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := node.(map[string]any)
		node = m[part]
	}
	m, _ := node.(map[string]any)
	return m
}

// deref follows a node's $ref, if it has one.
func (d oaDoc) deref(node map[string]any) map[string]any {
	if ref, ok := node["$ref"].(string); ok {
		return d.ref(ref)
	}
	return node
}

// response is the documented response of op ("GET /api/enrichment/products") for status.
func (d oaDoc) response(op, status string) map[string]any {
	method, path, _ := strings.Cut(op, " ")
	resp := oaMap(oaMap(oaMap(oaMap(d.ref("#/paths")[path])[strings.ToLower(method)])["responses"])[status])
	if resp == nil {
		return nil
	}
	return d.deref(resp)
}

// oaSchema is the JSON body schema of a response.
func oaSchema(resp map[string]any) map[string]any {
	return oaMap(oaMap(oaMap(resp["content"])["application/json"])["schema"])
}

// validate lists every way v does not match schema.
func (d oaDoc) validate(schema map[string]any, v any, at string) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, args...)) }
	if ref, ok := schema["$ref"].(string); ok {
		target := d.ref(ref)
		if target == nil {
			return []string{at + ": unresolved " + ref}
		}
		errs = append(errs, d.validate(target, v, at)...)
	}
	if types, ok := schema["type"].([]any); ok && !slices.ContainsFunc(types, func(typ any) bool { return oaIsType(v, typ) }) {
		fail("%s is not of type %v", fmt.Sprintf("%.60s", fmt.Sprint(v)), types)
		return errs
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		fail("%s is not one of %v", fmt.Sprintf("%.60s", fmt.Sprint(v)), enum)
	}
	if anyOf, ok := schema["anyOf"].([]any); ok && !slices.ContainsFunc(anyOf, func(s any) bool {
		return len(d.validate(s.(map[string]any), v, at)) == 0
	}) {
		fail("%s matches none of anyOf", fmt.Sprintf("%.60s", fmt.Sprint(v)))
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for _, name := range oaSlice(schema["required"]) {
			if _, ok := x[name.(string)]; !ok {
				fail("missing required %q", name)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(x)) {
			if p, ok := props[name].(map[string]any); ok {
				errs = append(errs, d.validate(p, x[name], at+"."+name)...)
			} else if extra, ok := schema["additionalProperties"].(map[string]any); ok {
				errs = append(errs, d.validate(extra, x[name], at+"."+name)...)
			} else if schema["additionalProperties"] == false {
				fail("undocumented property %q", name)
			}
		}
	case []any:
		if n, ok := schema["minItems"].(float64); ok && float64(len(x)) < n {
			fail("%d items, want at least %v", len(x), n)
		}
		if n, ok := schema["maxItems"].(float64); ok && float64(len(x)) > n {
			fail("%d items, want at most %v", len(x), n)
		}
		if items, ok := schema["items"].(map[string]any); ok {
			for i, e := range x {
				errs = append(errs, d.validate(items, e, fmt.Sprintf("%s.%d", at, i))...)
			}
		}
	case float64:
		if m, ok := schema["minimum"].(float64); ok && x < m {
			fail("%v is below %v", x, m)
		}
		if m, ok := schema["maximum"].(float64); ok && x > m {
			fail("%v is above %v", x, m)
		}
	case string:
		if n, ok := schema["minLength"].(float64); ok && float64(utf8.RuneCountInString(x)) < n {
			fail("shorter than %v", n)
		}
		if n, ok := schema["maxLength"].(float64); ok && float64(utf8.RuneCountInString(x)) > n {
			fail("longer than %v", n)
		}
		if p, ok := schema["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(x) {
			fail("%q does not match %s", x, p)
		}
	}
	return errs
}

func oaIsType(v, typ any) bool {
	switch x := v.(type) {
	case nil:
		return typ == "null"
	case bool:
		return typ == "boolean"
	case string:
		return typ == "string"
	case map[string]any:
		return typ == "object"
	case []any:
		return typ == "array"
	case float64:
		return typ == "number" || (typ == "integer" && x == math.Trunc(x))
	}
	return false
}

// oaWalk calls fn on every object in node, with its JSON path.
func oaWalk(node any, at string, fn func(at string, m map[string]any)) {
	switch x := node.(type) {
	case map[string]any:
		fn(at, x)
		for _, k := range slices.Sorted(maps.Keys(x)) {
			oaWalk(x[k], at+"/"+k, fn)
		}
	case []any:
		for i, e := range x {
			oaWalk(e, fmt.Sprintf("%s/%d", at, i), fn)
		}
	}
}

// TestOpenAPIDocument checks the document's own consistency: every $ref
// resolves, every schema uses only keywords the validator knows with 3.1
// type arrays, and every example matches its schema.
func TestOpenAPIDocument(t *testing.T) {
	app := fixture.Get(t).NewApp(t)
	t.Cleanup(app.Cleanup)
	d := oaLoad(t, handler(t, app))
	if v, _ := d["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi = %q, want 3.1.x", v)
	}
	examples := 0
	oaWalk(map[string]any(d), "#", func(at string, m map[string]any) {
		if ref, ok := m["$ref"].(string); ok && d.ref(ref) == nil {
			t.Errorf("%s: $ref %s does not resolve", at, ref)
		}
		if strings.HasPrefix(at, "#/components/schemas/") && strings.Count(at, "/") == 3 {
			oaWalkSchema(t, at, m)
		}
		schema, ok := m["schema"].(map[string]any)
		if !ok {
			return
		}
		oaWalkSchema(t, at+"/schema", schema)
		for name, e := range oaMap(m["examples"]) {
			examples++
			for _, err := range d.validate(schema, d.deref(e.(map[string]any))["value"], at+"/examples/"+name) {
				t.Error(err)
			}
		}
		if e, ok := m["example"]; ok {
			examples++
			for _, err := range d.validate(schema, e, at+"/example") {
				t.Error(err)
			}
		}
	})
	if examples < 20 {
		t.Errorf("only %d examples checked", examples)
	}
}

// oaWalkSchema checks a schema and its subschemas for keywords validate does
// not know and for type written other than as a 3.1 type array.
func oaWalkSchema(t *testing.T, at string, s map[string]any) {
	for k, v := range s {
		if !slices.Contains(oaKeywords, k) {
			t.Errorf("%s: keyword %q is not checked by the test's validator", at, k)
		}
		if _, ok := v.([]any); k == "type" && !ok {
			t.Errorf("%s: type %v, want an array (OpenAPI 3.1 style)", at, v)
		}
	}
	sub := func(name string, v any) {
		if m, ok := v.(map[string]any); ok {
			oaWalkSchema(t, at+"/"+name, m)
		}
	}
	for name, p := range oaMap(s["properties"]) {
		sub("properties/"+name, p)
	}
	sub("items", s["items"])
	sub("additionalProperties", s["additionalProperties"])
	for i, a := range oaSlice(s["anyOf"]) {
		sub(fmt.Sprintf("anyOf/%d", i), a)
	}
}

func oaMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func oaSlice(v any) []any        { s, _ := v.([]any); return s }

// TestOpenAPIValidatorIsStrict shows that a missing, extra or mistyped
// field fails validation, so the shape tests mean something.
func TestOpenAPIValidatorIsStrict(t *testing.T) {
	f, _, h := served(t)
	d := oaLoad(t, h)
	body := request(h, http.MethodPost, lookupURL, f.A.Keys["read"], `{"skus":["SKU-M"]}`).Body.Bytes()
	lookup := oaSchema(d.response("POST "+lookupURL, "200"))
	if errs := d.validate(lookup, decode[any](t, body), "body"); len(errs) > 0 {
		t.Fatalf("the real response does not validate: %v", errs)
	}
	mutations := map[string]func(p map[string]any){
		"extra field":            func(p map[string]any) { p["price"] = 1.0 },
		"missing field":          func(p map[string]any) { delete(p, "gtin") },
		"null list":              func(p map[string]any) { p["attributes"] = nil },
		"string id":              func(p map[string]any) { p["id"] = "1" },
		"fractional id":          func(p map[string]any) { p["id"] = 1.5 },
		"extra field in variant": func(p map[string]any) { oaSlice(p["variants"])[0].(map[string]any)["x"] = true },
		"bad nested option":      func(p map[string]any) { oaSlice(p["attributes"])[0].(map[string]any)["option"] = map[string]any{} },
		"brand not an object":    func(p map[string]any) { p["brand"] = "Acme" },
	}
	for name, mutate := range mutations {
		v := decode[map[string]any](t, body)
		mutate(oaSlice(v["items"])[0].(map[string]any))
		if errs := d.validate(lookup, v, "body"); len(errs) == 0 {
			t.Errorf("%s: still valid", name)
		}
	}
}

// oaCase is one real request whose response must match the document.
type oaCase struct {
	name   string
	op     string // the documented operation, "METHOD /path"
	method string // when not the operation's
	url    string // when not the operation's path
	key    string
	token  string // a PocketBase auth token, for the reviewers' operations
	body   string
	status int
	want   []string // substrings of the body, to show what was validated
}

// oaHeaders are the response headers the document describes; one that
// the server sends must be documented on that response.
var oaHeaders = []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After", "Idempotent-Replayed", "Allow"}

// oaCheck sends c and validates the answer against the document.
func oaCheck(t *testing.T, d oaDoc, h http.Handler, c oaCase) []byte {
	t.Helper()
	method, path, _ := strings.Cut(c.op, " ")
	if c.method != "" {
		method = c.method
	}
	if c.url == "" {
		c.url = path
	}
	r := request(h, method, c.url, c.key, c.body)
	if c.token != "" {
		r = requestAuth(h, method, c.url, c.token, c.body)
	}
	if r.Code != c.status {
		t.Errorf("%s: status %d, want %d: %.300s", c.name, r.Code, c.status, r.Body)
		return nil
	}
	resp := d.response(c.op, fmt.Sprint(c.status))
	if resp == nil {
		t.Errorf("%s: %s documents no %d response", c.name, c.op, c.status)
		return nil
	}
	if c.status == http.StatusNoContent {
		if r.Body.Len() != 0 {
			t.Errorf("%s: a body with 204: %s", c.name, r.Body)
		}
		return nil
	}
	if ct := r.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q", c.name, ct)
	}
	for _, name := range oaHeaders {
		if r.Header().Get(name) != "" && oaMap(resp["headers"])[name] == nil {
			t.Errorf("%s: header %s sent but not documented on %s %d", c.name, name, c.op, c.status)
		}
	}
	for _, err := range d.validate(oaSchema(resp), decode[any](t, r.Body.Bytes()), "body") {
		t.Errorf("%s: %s", c.name, err)
	}
	for _, w := range c.want {
		if !strings.Contains(r.Body.String(), w) {
			t.Errorf("%s: no %s in %.300s", c.name, w, r.Body)
		}
	}
	return r.Body.Bytes()
}

// TestOpenAPIResponseShapes validates real responses of every operation,
// for the fixture catalog, against the document: products of every kind,
// submission results, the revisions after a review, metrics, and the error
// bodies of every documented status.
func TestOpenAPIResponseShapes(t *testing.T) {
	f, app, h := served(t)
	d := oaLoad(t, h)
	read, both, submit := f.A.Keys["read"], f.A.Keys["both"], f.A.Keys["submit"]
	templates, products, skus := "GET /api/enrichment/attribute-templates", "GET "+exportURL, "POST "+lookupURL
	submissions, metrics, revisions := "POST "+submitURL, "GET /api/enrichment/acceptance-rate", "GET "+revisionsURL

	// a template without options, and a key of B limited to 1 request/s (bursts of 2)
	collection, err := app.FindCollectionByNameOrId("attribute_templates")
	if err != nil {
		t.Fatal(err)
	}
	empty := core.NewRecord(collection)
	empty.Load(map[string]any{"organization": string(f.A.Org), "name": "Empty", "active": true})
	if err := app.Save(empty); err != nil {
		t.Fatal(err)
	}
	limited := f.B.Keys["read"]
	if _, err := app.DB().NewQuery("UPDATE api_clients SET rateLimit = 1 WHERE id = {:id}").
		Bind(map[string]any{"id": fmt.Sprint(f.B.Clients["read"])}).Execute(); err != nil {
		t.Fatal(err)
	}
	batch := `{"externalSubmissionId":"shapes","items":[
		{"sku":"SKU-1","confidence":90,"name":"Runner Pro","gtin":"x","model":{"name":"writer","version":"1"},
		 "sources":[{"field":"name","url":"https://maker.example/runner","quote":"Runner Pro"},{"field":"slug","url":"x"}]},
		{"sku":"SKU-M-RED","confidence":55,"attributes":[{"attribute":"color","detail":"Crimson","option":{"optionId":1}}],"files":["a.pdf"]},
		{"sku":"SKU-NEW","description":"Newer."},
		{"sku":"SKU-M","slug":" ","files":[]},
		{"sku":"NOPE","name":"x"}]}`

	cases := []oaCase{
		{name: "templates", op: templates, key: read, status: 200, want: []string{`"options":[]`, `"dataType":null`}},
		{name: "every product", op: products, url: exportURL + "?pageSize=500", key: read, status: 200,
			want: []string{`"sku":"SKU-1"`, `"variants":[{`, `"variantMaster":"SKU-M"`, `"brand":null`, `"unit":"EU"`}},
		{name: "a page past the last", op: products, url: exportURL + "?page=9", key: read, status: 200},
		{name: "bad modifiedSince", op: products, url: exportURL + "?modifiedSince=yesterday", key: read, status: 400},
		{name: "bad paging", op: products, url: exportURL + "?page=-1&pageSize=x", key: read, status: 400},
		{name: "lookup", op: skus, key: read, body: `{"skus":["SKU-1","SKU-M","SKU-M-RED","SKU-DUP","NOPE"]}`, status: 200},
		{name: "lookup without skus", op: skus, key: read, body: `{}`, status: 400},
		{name: "lookup with a number", op: skus, key: read, body: `{"skus":[1]}`, status: 400},
		{name: "lookup body over 64 KiB", op: skus, key: read, body: `{"skus":["` + strings.Repeat("x", 65<<10) + `"]}`, status: 413},
		{name: "lookup with GET", op: skus, method: http.MethodGet, key: read, status: 405},
		{name: "submission", op: submissions, key: both, body: batch, status: 200,
			want: []string{`"CREATED"`, `"UNMATCHED"`, `"REJECTED_FIELDS"`, `"ignoredFields":["gtin"]`, `"code":"invalid_source"`, `"code":"renamed"`}},
		{name: "replayed submission", op: submissions, key: both, body: batch, status: 200},
		{name: "reused externalSubmissionId", op: submissions, key: both, body: strings.Replace(batch, "Newer.", "Other.", 1), status: 422},
		{name: "dry run", op: submissions, url: submitURL + "?dryRun=true", key: both, body: batch, status: 200},
		{name: "bad item", op: submissions, key: both, body: `{"items":[{"sku":"SKU-1","confidence":101,"files":[1]}]}`, status: 400},
		{name: "submission over 16 MiB", op: submissions, key: both, body: `{"items":[{"sku":"SKU-1","description":"` + strings.Repeat("x", 16<<20) + `"}]}`, status: 413},
		{name: "submission with a read key", op: submissions, key: read, body: batch, status: 403},
		{name: "no key", op: templates, status: 401},
		{name: "unknown key", op: metrics, key: "cek_nope", status: 401},
		{name: "templates with a submit key", op: templates, key: submit, status: 403},
		{name: "unknown path", op: products, url: exportURL + "/12", key: read, status: 404},
		{name: "DELETE on the export", op: products, method: http.MethodDelete, key: read, status: 405},
		{name: "metrics with a bad model", op: metrics, url: "/api/enrichment/acceptance-rate?model=", key: both, status: 400},
		{name: "submission with a bad model", op: submissions, key: both, body: `{"model":{"name":""},"items":[{"sku":"SKU-1","name":"x"}]}`, status: 400},
		{name: "metrics with a bad until", op: metrics, url: "/api/enrichment/acceptance-rate?until=soon", key: both, status: 400},
		{name: "revisions with a bad status", op: revisions, url: revisionsURL + "?status=done", key: both, status: 400},
		{name: "the document", op: "GET " + openapiURL, status: 200},
		{name: "POST on the document", op: "GET " + openapiURL, method: http.MethodPost, status: 405},
		{name: "limited key, first", op: templates, key: limited, status: 200},
		{name: "limited key, second", op: templates, key: limited, status: 200},
		{name: "limited key, over the limit", op: templates, key: limited, status: 429},
	}
	var results []result
	for _, c := range cases {
		body := oaCheck(t, d, h, c)
		if c.name == "submission" {
			results = decode[[]result](t, body)
		}
	}
	if len(results) != 5 || results[0].RevisionID == nil || results[1].RevisionID == nil {
		t.Fatalf("submission results: %+v", results)
	}

	// a reviewer accepts one revision in part and rejects another
	token := fixture.SuperuserToken(t, app)
	for id, decision := range map[int64]string{
		*results[0].RevisionID: `{"status":"accepted","approvedFields":["name"]}`,
		*results[1].RevisionID: `{"status":"rejected"}`,
	} {
		if r := requestAuth(h, http.MethodPatch, fmt.Sprintf("/api/collections/revisions/records/%d", id), token, decision); r.Code != 200 {
			t.Fatalf("decide %d: %d %s", id, r.Code, r.Body)
		}
	}
	body := oaCheck(t, d, h, oaCase{name: "revisions after a review", op: revisions, key: both, status: 200})
	for _, want := range []string{`"status":"accepted"`, `"status":"rejected"`, `"status":"pending"`, `"applied"`, `"not_applied"`, `"confidence":null`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the revisions list has no %s: %s", want, body)
		}
	}
	body = oaCheck(t, d, h, oaCase{name: "metrics of a model after a review", op: metrics, url: "/api/enrichment/acceptance-rate?model=writer&modelVersion=1",
		key: both, status: 200})
	if !strings.Contains(string(body), `"byModel":[{"name":"writer","version":"1","reviewed":1,"accepted":1,"acceptanceRate":1}]`) {
		t.Errorf("metrics of a model: %s", body)
	}
	body = oaCheck(t, d, h, oaCase{name: "metrics after a review", op: metrics, key: both, status: 200})
	if !strings.Contains(string(body), `"reviewed":2,"accepted":1`) {
		t.Errorf("metrics: %s", body)
	}

	// webhooks and the change feed
	t.Setenv(webhooks.AllowPrivateEnv, "1")
	hooks, hook := "/api/enrichment/webhooks", "/api/enrichment/webhooks/{id}"
	body = oaCheck(t, d, h, oaCase{name: "subscribe", op: "POST " + hooks, key: both, status: 201,
		body: `{"url":"http://127.0.0.1:9/hook","events":["revision.accepted","ping"]}`, want: []string{`"secret":"whsec_`}})
	w := decode[enrichment.CreatedWebhook](t, body)
	at := func(suffix string) string { return fmt.Sprintf("%s/%d%s", hooks, w.ID, suffix) }
	oaCheck(t, d, h, oaCase{name: "subscribe to nothing", op: "POST " + hooks, key: both, status: 400, body: `{"url":"http://127.0.0.1:9/","events":[]}`})
	oaCheck(t, d, h, oaCase{name: "subscribe with a read key", op: "POST " + hooks, key: read, status: 403, body: `{}`})
	oaCheck(t, d, h, oaCase{name: "subscriptions", op: "GET " + hooks, key: both, status: 200})
	oaCheck(t, d, h, oaCase{name: "ping", op: "POST " + hook + "/test", url: at("/test"), key: both, status: 202})
	oaCheck(t, d, h, oaCase{name: "ping another's", op: "POST " + hook + "/test", url: at("/test"), key: submit, status: 404})
	oaCheck(t, d, h, oaCase{name: "deliveries", op: "GET " + hook + "/deliveries", url: at("/deliveries"), key: both, status: 200,
		want: []string{`"event":"ping"`}})
	oaCheck(t, d, h, oaCase{name: "deliveries, bad page", op: "GET " + hook + "/deliveries", url: at("/deliveries?page=-1"), key: both, status: 400})
	oaCheck(t, d, h, oaCase{name: "unsubscribe", op: "DELETE " + hook, url: at(""), key: both, status: 204})
	oaCheck(t, d, h, oaCase{name: "unsubscribe again", op: "DELETE " + hook, url: at(""), key: both, status: 404})
	changes := "GET /api/enrichment/changes"
	oaCheck(t, d, h, oaCase{name: "the change feed", op: changes, url: "/api/enrichment/changes?limit=5", key: read, status: 200,
		want: []string{`"change":"upsert"`, `"hasMore":true`}})
	oaCheck(t, d, h, oaCase{name: "the change feed, bad limit", op: changes, url: "/api/enrichment/changes?limit=0", key: read, status: 400})
	stale := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("c1:%s:1:1", f.A.Org)))
	oaCheck(t, d, h, oaCase{name: "the change feed, a stale cursor", op: changes, url: "/api/enrichment/changes?after=" + stale, key: read, status: 410})

	overview := "GET /api/enrichment/review/overview"
	body = oaCheck(t, d, h, oaCase{name: "the overview", op: overview, token: token, status: 200})
	if !strings.Contains(string(body), `"reviewed":2,"accepted":1`) {
		t.Errorf("overview: %s", body)
	}
	oaCheck(t, d, h, oaCase{name: "the overview of one organization", op: overview, url: "/api/enrichment/review/overview?organization=" + string(f.B.Org), token: token, status: 200})
	oaCheck(t, d, h, oaCase{name: "the overview of no organization", op: overview, url: "/api/enrichment/review/overview?organization=x", token: token, status: 400})
	oaCheck(t, d, h, oaCase{name: "the overview of an unknown organization", op: overview, url: "/api/enrichment/review/overview?organization=999", token: token, status: 404})
	oaCheck(t, d, h, oaCase{name: "the overview with an API key", op: overview, key: both, status: 401})

	queue := "GET /api/enrichment/review/queue"
	oaCheck(t, d, h, oaCase{name: "the queue", op: queue, token: token, status: 200, want: []string{`"rivals":1`, `"expand":{"product":{"id":`}})
	oaCheck(t, d, h, oaCase{name: "the queue, filtered and sorted", op: queue, token: token, status: 200,
		url: "/api/enrichment/review/queue?band=none&sort=age-asc&sku=%25&exclude=1,2&pageSize=5&organization=" + string(f.A.Org)})
	oaCheck(t, d, h, oaCase{name: "the queue, a bad band", op: queue, url: "/api/enrichment/review/queue?band=90", token: token, status: 400})
	oaCheck(t, d, h, oaCase{name: "the queue of an unknown organization", op: queue, url: "/api/enrichment/review/queue?organization=999", token: token, status: 404})
	oaCheck(t, d, h, oaCase{name: "the queue with an API key", op: queue, key: both, status: 401})

	vocabulary := "GET /api/enrichment/review/vocabulary"
	oaCheck(t, d, h, oaCase{name: "the vocabulary", op: vocabulary, token: token, status: 200, want: []string{`"limits":{"commentLength":`}})
	oaCheck(t, d, h, oaCase{name: "the vocabulary with an API key", op: vocabulary, key: both, status: 401})
	plan := "GET /api/enrichment/review/plan"
	confident, name := 90, "Newest, better"
	if _, err := store.New(app).Proposals().Submit(f.A.Org, f.A.Clients["both"], []enrichment.Proposal{
		{SKU: "SKU-NEW", Confidence: &confident, Fields: enrichment.Fields{Name: &name}}}, store.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	body = oaCheck(t, d, h, oaCase{name: "the bulk accept's plan", op: plan, token: token, status: 200})
	p := decode[store.Plan](t, body)
	if len(p.Accept) == 0 {
		t.Fatalf("the plan accepts nothing, the test validates no item: %s", body)
	}
	oaCheck(t, d, h, oaCase{name: "a selection's plan", op: plan, url: "/api/enrichment/review/plan?revisions=" + p.Accept[0].ID, token: token, status: 200,
		want: []string{`"fields":[`}})
	oaCheck(t, d, h, oaCase{name: "a plan, a bad client", op: plan, url: "/api/enrichment/review/plan?client=x", token: token, status: 400})
	oaCheck(t, d, h, oaCase{name: "a plan of an unknown organization", op: plan, url: "/api/enrichment/review/plan?organization=999", token: token, status: 404})
	decisions := "POST /api/enrichment/review/decisions"
	oaCheck(t, d, h, oaCase{name: "a group decision", op: decisions, token: token, status: 200,
		body: `{"decisions":[{"id":"` + p.Accept[0].ID + `","status":"accepted","comment":"Thanks"},{"id":"` + p.Accept[0].ID + `0","status":"rejected"}]}`,
		want: []string{`"outcome":"decided"`, `"outcome":"refused"`}})
	oaCheck(t, d, h, oaCase{name: "a group decision of nothing", op: decisions, token: token, status: 400, body: `{"decisions":[]}`})
	oaCheck(t, d, h, oaCase{name: "a group decision with an API key", op: decisions, key: both, status: 401, body: `{}`})

	// a revision a trust policy accepted and drew for audit
	policies, err := app.FindCollectionByNameOrId("trust_policies")
	if err != nil {
		t.Fatal(err)
	}
	policy := core.NewRecord(policies)
	policy.Load(map[string]any{"organization": string(f.A.Org), "apiClient": fmt.Sprint(f.A.Clients["both"]), "fields": []string{"name"}, "auditRate": 0.05})
	if err := app.Save(policy); err != nil {
		t.Fatal(err)
	}
	res, err := store.New(app).Proposals().Submit(f.A.Org, f.A.Clients["both"], []enrichment.Proposal{
		{SKU: "SKU-1", Confidence: &confident, Fields: enrichment.Fields{Name: &name}}}, store.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := store.New(app).Review().DecideSet(f.A.Org, []store.SetDecision{{Revision: fmt.Sprint(*res[0].RevisionID),
		Decision: enrichment.Decision{Status: enrichment.StatusAccepted}, Audit: true}}, store.SetDecider{Policy: policy.Id}, clock.Now(app))
	if err != nil || !out[0].Decided() {
		t.Fatal(err, out)
	}
	audits, closeAudit := "GET /api/enrichment/review/audits", "POST /api/enrichment/review/audits/{id}"
	oaCheck(t, d, h, oaCase{name: "the audit queue", op: audits, token: token, status: 200, want: []string{`"audit":"pending"`}})
	oaCheck(t, d, h, oaCase{name: "the audit queue, bad paging", op: audits, url: "/api/enrichment/review/audits?page=-1", token: token, status: 400})
	oaCheck(t, d, h, oaCase{name: "the audit queue with an API key", op: audits, key: both, status: 401})
	closeURL := "/api/enrichment/review/audits/" + out[0].Revision
	oaCheck(t, d, h, oaCase{name: "an audit closed with nonsense", op: closeAudit, url: closeURL, token: token, status: 400, body: `{"audit":"maybe"}`})
	oaCheck(t, d, h, oaCase{name: "an audit confirmed", op: closeAudit, url: closeURL, token: token, status: 200, body: `{"audit":"confirmed"}`,
		want: []string{`"audit":"confirmed"`, `"auditedBy":"` + fixture.SuperuserID(t, app) + `"`}})
	oaCheck(t, d, h, oaCase{name: "an audit closed twice", op: closeAudit, url: closeURL, token: token, status: 400, body: `{"audit":"confirmed"}`})
	oaCheck(t, d, h, oaCase{name: "an unknown revision's audit", op: closeAudit, url: "/api/enrichment/review/audits/999999", token: token, status: 404,
		body: `{"audit":"confirmed"}`})

	// reviewers together
	_, ann := namedReviewer(t, app, f.A.Org, "ann@example.com", "Ann")
	_, bob := namedReviewer(t, app, f.A.Org, "bob@example.com", "")
	held := pendingRevisions(t, app, f.A, "BULK-0001")[0]
	claim, release := "POST /api/enrichment/review/claims/{revisionId}", "DELETE /api/enrichment/review/claims/{revisionId}"
	claimURL := "/api/enrichment/review/claims/" + held
	oaCheck(t, d, h, oaCase{name: "a claim", op: claim, url: claimURL, token: ann, status: 200, want: []string{`"email":"ann@example.com"`}})
	oaCheck(t, d, h, oaCase{name: "a claim with an empty object", op: claim, url: claimURL, token: ann, body: `{}`, status: 200})
	oaCheck(t, d, h, oaCase{name: "a claim with a list", op: claim, url: claimURL, token: ann, body: `[]`, status: 400})
	oaCheck(t, d, h, oaCase{name: "another's claim", op: claim, url: claimURL, token: bob, status: 409, want: []string{`"validation_claim_held"`}})
	oaCheck(t, d, h, oaCase{name: "a superuser's claim", op: claim, url: claimURL, token: token, status: 403})
	oaCheck(t, d, h, oaCase{name: "a claim of nothing", op: claim, url: "/api/enrichment/review/claims/999999", token: ann, status: 404})
	oaCheck(t, d, h, oaCase{name: "the queue with claims", op: queue, url: "/api/enrichment/review/queue?claimed=include&q=bulk&field=name&issues=false&competing=false&olderThan=0",
		token: bob, status: 200, want: []string{`"claim":{"reviewer":`}})
	oaCheck(t, d, h, oaCase{name: "the queue, a bad olderThan", op: queue, url: "/api/enrichment/review/queue?olderThan=x", token: bob, status: 400})
	oaCheck(t, d, h, oaCase{name: "releasing another's claim", op: release, url: claimURL, token: bob, status: 409})
	oaCheck(t, d, h, oaCase{name: "releasing one's claim", op: release, url: claimURL, token: ann, status: 204})
	decided := "GET /api/enrichment/review/decided"
	oaCheck(t, d, h, oaCase{name: "the history", op: decided, token: token, status: 200, want: []string{`"decidedBy":"reviewer"`}})
	oaCheck(t, d, h, oaCase{name: "my history", op: decided, url: "/api/enrichment/review/decided?reviewer=me&decidedBy=reviewer", token: ann, status: 200})
	oaCheck(t, d, h, oaCase{name: "the history, a bad until", op: decided, url: "/api/enrichment/review/decided?until=soon", token: ann, status: 400})
	oaCheck(t, d, h, oaCase{name: "the history of an unknown reviewer", op: decided, url: "/api/enrichment/review/decided?reviewer=nobody", token: ann, status: 404})
}
