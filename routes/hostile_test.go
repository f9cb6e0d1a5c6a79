package routes_test

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/pocketbase/pocketbase/tests"
)

// hostile is a request built to break the service: it must get the status
// given (never 500), a JSON body, and, for submissions, store nothing.
type hostile struct {
	name   string
	method string
	path   string
	query  string // raw, so it may hold any bytes
	key    string // raw header value; "" sends none
	ctype  string // Content-Type; "" sends application/json, "-" none
	body   string
	status int                                       // 0: any status below 500
	check  func(t *testing.T, code int, body []byte) // replaces the status check
}

// hostileValues are hostile values for every parameter: SQL and PocketBase
// filter syntax, LIKE wildcards, NUL, invalid UTF-8 and numbers out of range.
var hostileValues = []string{"' OR 1=1 --", "SKU-1' OR '1'='1", `" || organization != "`, "@request.auth.id",
	"%", "_", `\`, "*", "SKU-%", "\x00", "SKU-1\x00", "\xff\xfe", "1e400", "-0", "9223372036854775808",
	"9007199254740993", "0x10", " 1", "1 ", "", "null", "[]", "{}"}

// sendHostile sends c with its raw query and header values.
func sendHostile(h http.Handler, c hostile) *httptest.ResponseRecorder {
	req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
	req.URL.RawQuery = c.query
	switch c.ctype {
	case "":
		req.Header.Set("Content-Type", "application/json")
	case "-":
	default:
		req.Header.Set("Content-Type", c.ctype)
	}
	if c.key != "" {
		req.Header[routes.KeyHeader] = []string{c.key}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// hostileJSON encodes s as a JSON string; invalid UTF-8 stays raw, so the
// body carries it as a client might.
func hostileJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		return `"` + s + `"`
	}
	return string(b)
}

// pageItems reports how many items a page envelope holds.
func pageItems(t *testing.T, body []byte) int {
	var p struct {
		Items []any `json:"items"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("not a page: %.200s", body)
	}
	return len(p.Items)
}

// plainNotFound checks a 200 page without items, or a 400.
func plainNotFound(t *testing.T, code int, body []byte) {
	if code != 200 && code != 400 {
		t.Fatalf("status %d: %.200s", code, body)
	}
	if code == 200 && pageItems(t, body) != 0 {
		t.Errorf("a plain value matched: %.200s", body)
	}
}

// emptyPage checks that a request past the end of the data (a huge page
// number, a date past year 9999) gets an empty page or a 400, never items.
func emptyPage(why string) func(t *testing.T, code int, body []byte) {
	return func(t *testing.T, code int, body []byte) {
		if code == 200 && pageItems(t, body) > 0 {
			t.Fatalf("%s: got %d items", why, pageItems(t, body))
		}
		if code != 200 && code != 400 {
			t.Fatalf("status %d", code)
		}
	}
}

// nestedJSON nests n levels of open and close.
func nestedJSON(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

// hostileCases builds the table for fixture f.
func hostileCases(f *fixture.Fixture) []hostile {
	const (
		templates, products, lookup = "/api/enrichment/attribute-templates", "/api/enrichment/products", "/api/enrichment/products/skus"
		submissions, metrics, revs  = "/api/enrichment/products/submissions", "/api/enrichment/acceptance-rate", "/api/enrichment/revisions"
	)
	read, both, b := f.A.Keys["read"], f.A.Keys["both"], f.B.Keys["both"]
	get := func(name, path, query string, status int) hostile {
		return hostile{name: name, method: http.MethodGet, path: path, query: query, key: both, status: status}
	}
	post := func(name, path, body string, status int) hostile {
		return hostile{name: name, method: http.MethodPost, path: path, key: both, body: body, status: status}
	}
	item := `{"sku":"SKU-1","name":"Hostile"}`
	pick := func(cond bool, yes, no int) int {
		if cond {
			return yes
		}
		return no
	}
	var cs []hostile

	for _, v := range hostileValues {
		q := url.QueryEscape(v)
		intStatus := 400
		if v == "-0" || v == "9007199254740993" || v == "9223372036854775808" || v == " 1" || v == "1 " || v == "" {
			intStatus = 200 // whole numbers (blanks trimmed; past int64, its bound); "" is the default
		}
		timeStatus := 400
		if v == "" || v == " 1" || v == "1 " {
			timeStatus = 200 // absent, or epoch millisecond 1 with blanks trimmed
		}
		skuCheck := plainNotFound
		if v == "" {
			skuCheck = nil // no filter: the control revision is listed
		}
		cs = append(cs,
			hostile{name: "key " + q, method: http.MethodGet, path: products, key: v + "x", status: 401},
			get("templates ignore ?x="+q, templates, "x="+q, 200),
			get("page="+q, products, "page="+q, intStatus),
			get("pageSize="+q, products, "pageSize="+q, intStatus),
			get("modifiedSince="+q, products, "modifiedSince="+q, timeStatus),
			get("revisions page="+q, revs, "page="+q, intStatus),
			get("revisions pageSize="+q, revs, "pageSize="+q, intStatus),
			get("since="+q, metrics, "since="+q, timeStatus),
			get("until="+q, metrics, "until="+q, timeStatus),
			get("revisions since="+q, revs, "since="+q, timeStatus),
			hostile{name: "status=" + q, method: http.MethodGet, path: revs, query: "status=" + q, key: both, status: pick(v == "", 200, 400)},
			hostile{name: "revisions sku=" + q, method: http.MethodGet, path: revs, query: "sku=" + q, key: both, status: 200, check: skuCheck},
			hostile{name: "dryRun=" + q, method: http.MethodPost, path: submissions, query: "dryRun=" + q, key: both,
				body: `{"items":[{"sku":"NO-SUCH","name":"x"}]}`, status: timeStatus}, // the same values pass
			hostile{name: "lookup of " + q, method: http.MethodPost, path: lookup, key: read, body: `{"skus":[` + hostileJSON(v) + `]}`, check: plainNotFound},
			hostile{name: "B's lookup of " + q, method: http.MethodPost, path: lookup, key: b, body: `{"skus":[` + hostileJSON(v) + `,"SKU-M"]}`, check: plainNotFound},
			hostile{name: "B's export with page=" + q, method: http.MethodGet, path: products, query: "pageSize=500&page=" + q, key: b},
			post("submission sku "+q, submissions, `{"items":[{"sku":`+hostileJSON(v)+`,"name":"x"}]}`, pick(v == "\xff\xfe", 400, 200)),
			post("externalSubmissionId "+q+" in a bad batch", submissions, `{"externalSubmissionId":`+hostileJSON(v)+`,"items":[{"sku":"SKU-1","confidence":101}]}`, 400),
			hostile{name: "externalSubmissionId " + q + " on a dry run", method: http.MethodPost, path: submissions, query: "dryRun=true", key: both,
				body: `{"externalSubmissionId":` + hostileJSON(v) + `,"items":[` + item + `]}`, status: pick(v == "\xff\xfe", 400, 200)},
		)
	}
	for _, n := range []string{"1e400", "-0", "9223372036854775808", "9007199254740993", "-1", "0.5", `"1"`, "true", "[]"} {
		confidence := pick(n == "-0", 200, 400)
		cs = append(cs,
			post("confidence "+n, submissions, `{"items":[{"sku":"NO-SUCH","name":"x","confidence":`+n+`}]}`, confidence),
			post("optionId "+n, submissions, `{"items":[{"sku":"SKU-1","attributes":[{"attribute":"A","option":{"optionId":`+n+`}}]}]}`, 400),
			post("skus "+n, lookup, `{"skus":`+n+`}`, 400),
		)
	}

	deep := nestedJSON("[", "]", 10_000)
	mib := strings.Repeat("x", 1<<20)
	cs = append(cs,
		hostile{name: "page past int64 overflow", method: http.MethodGet, path: products, query: "page=9223372036854775807", key: both,
			check: emptyPage("page*pageSize must not overflow into page 0")},
		hostile{name: "revisions page past int64 overflow", method: http.MethodGet, path: revs, query: "page=4611686018427387904&pageSize=4", key: both,
			check: emptyPage("page*pageSize must not overflow into page 0")},
		hostile{name: "modifiedSince past year 9999", method: http.MethodGet, path: products, query: "modifiedSince=9999-12-31T23:59:59-01:00", key: both,
			check: emptyPage("a time past year 9999 must not match every product")},
		get("a 1 MiB sku filter", revs, "sku="+mib, 200),
		get("a 1 MiB modifiedSince", products, "modifiedSince="+mib, 400),
		get("repeated parameters", products, "page=0&page=1&page=x&pageSize=1&pageSize=-5", 200),
		get("raw invalid UTF-8 in the query", revs, "sku=\xff&status=\xfe", 400),
		get("a bare parameter name", products, "page&pageSize&modifiedSince", 200),
		get("a semicolon in the query", products, "page=0;pageSize=1", 200), // note: Go drops the pair
		hostile{name: "a 1 MiB key", method: http.MethodGet, path: templates, key: mib, status: 401},
		hostile{name: "a key with NUL and CRLF", method: http.MethodGet, path: templates, key: "cek_\x00\r\nX: y", status: 401},
		hostile{name: "a key of blanks", method: http.MethodGet, path: templates, key: "   ", status: 401},

		hostile{name: "form-encoded lookup", method: http.MethodPost, path: lookup, key: read, ctype: "application/x-www-form-urlencoded", body: "skus=SKU-1&skus=SKU-2", status: 415},
		hostile{name: "multipart lookup", method: http.MethodPost, path: lookup, key: read, ctype: "multipart/form-data; boundary=X",
			body: "--X\r\nContent-Disposition: form-data; name=\"skus\"\r\n\r\nSKU-1\r\n--X--\r\n", status: 415},
		hostile{name: "text/plain lookup", method: http.MethodPost, path: lookup, key: read, ctype: "text/plain", body: "SKU-1", status: 415},
		hostile{name: "lookup without Content-Type or body", method: http.MethodPost, path: lookup, key: read, ctype: "-", status: 400},
		hostile{name: "JSON labelled text/plain", method: http.MethodPost, path: lookup, key: read, ctype: "text/plain", body: `{"skus":["SKU-1"]}`, status: 415},
		hostile{name: "form-encoded submission", method: http.MethodPost, path: submissions, key: both, ctype: "application/x-www-form-urlencoded", body: "items=SKU-1", status: 415},
		hostile{name: "multipart submission", method: http.MethodPost, path: submissions, key: both, ctype: "multipart/form-data; boundary=X",
			body: "--X\r\nContent-Disposition: form-data; name=\"items\"\r\n\r\n[" + item + "]\r\n--X--\r\n", status: 415},
		hostile{name: "submission without Content-Type or body", method: http.MethodPost, path: submissions, key: both, ctype: "-", status: 400},
		hostile{name: "XML submission", method: http.MethodPost, path: submissions, key: both, ctype: "application/xml", body: "<items><sku>SKU-1</sku></items>", status: 415},

		post("10k nestedJSON arrays in an item field", submissions, `{"items":[{"sku":"SKU-1","name":"x","extra":`+deep+`}]}`, 400),
		post("10k nestedJSON arrays as attributes", submissions, `{"items":[{"sku":"SKU-1","attributes":`+deep+`}]}`, 400),
		post("10k nestedJSON arrays as the body", submissions, deep, 400),
		post("10k nestedJSON objects", submissions, strings.Repeat(`{"a":`, 10_000)+"1"+strings.Repeat("}", 10_000), 400),
		post("10k nestedJSON arrays as skus", lookup, `{"skus":`+deep+`}`, 400),
		post("5k nestedJSON arrays in an ignored field", submissions, `{"items":[{"sku":"NO-SUCH","name":"x","extra":`+nestedJSON("[", "]", 5_000)+`}]}`, 200),
		post("a 1 MiB sku", submissions, `{"items":[{"sku":"`+mib+`","name":"x"}]}`, 200),
		post("a 1 MiB sku in a lookup", lookup, `{"skus":["`+mib+`"]}`, 413),
		post("a 10 MiB description in a bad batch", submissions, `{"items":[{"sku":"SKU-1","description":"`+strings.Repeat(mib, 10)+`"},{"sku":"SKU-1","confidence":101}]}`, 400),
		hostile{name: "a 10 MiB description on a dry run", method: http.MethodPost, path: submissions, query: "dryRun=true", key: both,
			body: `{"items":[{"sku":"SKU-1","description":"` + strings.Repeat(mib, 10) + `"}]}`, status: 200},
		post("invalid UTF-8 in a member name", submissions, "{\"items\":[{\"sku\":\"SKU-1\",\"na\xffme\":\"x\"}]}", 400),
		post("invalid UTF-8 in a name", submissions, "{\"items\":[{\"sku\":\"SKU-1\",\"name\":\"\xc3\x28\"}]}", 400),
		post("a lone surrogate escape", submissions, `{"items":[{"sku":"SKU-1","name":"\ud800"}]}`, 400),
		post("a raw NUL in a string", submissions, "{\"items\":[{\"sku\":\"SKU-1\",\"name\":\"a\x00b\"}]}", 400),
		post("a raw NUL between tokens", submissions, "{\"items\":\x00[]}", 400),
		post("an escaped NUL sku", submissions, `{"items":[{"sku":"SKU-1\u0000","name":"x"}]}`, 200),
		post("duplicate items", submissions, `{"items":[`+item+`],"items":[`+item+`]}`, 400),
		post("duplicate sku in an item", submissions, `{"items":[{"sku":"SKU-1","sku":"SKU-2","name":"x"}]}`, 400),
		post("duplicate name in an item", submissions, `{"items":[{"sku":"SKU-1","name":"x","name":"y"}]}`, 400),
		post("duplicate attribute member", submissions, `{"items":[{"sku":"SKU-1","attributes":[{"attribute":"A","attribute":"B"}]}]}`, 400),
		post("duplicate skus", lookup, `{"skus":["SKU-1"],"skus":["SKU-2"]}`, 400),
		post("a BOM before the body", submissions, "\xef\xbb\xbf{\"items\":["+item+"]}", 400),
		post("two JSON values", submissions, `{"items":[`+item+`]}{"items":[]}`, 400),
		post("trailing comma", submissions, `{"items":[`+item+`,]}`, 400),
		post("single quotes", submissions, `{'items':[{'sku':'SKU-1','name':'x'}]}`, 400),
		post("NaN confidence", submissions, `{"items":[{"sku":"SKU-1","name":"x","confidence":NaN}]}`, 400),
		post("a comment", submissions, `{"items":[`+item+`] /* x */}`, 400),
		post("items as a string of JSON", submissions, `{"items":"[`+strings.ReplaceAll(item, `"`, `\"`)+`]"}`, 400),
		post("1001 items of nothing", submissions, `{"items":[`+strings.TrimSuffix(strings.Repeat(`{},`, 1001), ",")+`]}`, 400),
		post("a submission over 16 MiB", submissions, `{"items":[{"sku":"SKU-1","description":"`+strings.Repeat(mib, 17)+`"}]}`, 413),
		hostile{name: "POST with a hostile body on the document", method: http.MethodPost, path: "/api/enrichment/openapi.json", body: deep, status: 405},
		hostile{name: "PUT on submissions", method: http.MethodPut, path: submissions, key: both, body: `{"items":[` + item + `]}`, status: 405},
		// note: Go's mux redirects to the cleaned path, outside the API
		hostile{name: "path traversal", method: http.MethodGet, path: "/api/enrichment/../_superusers", key: both, status: 307},
		// note: %2F is no separator, so no route takes it, and no route has that name
		hostile{name: "encoded slash in the path", method: http.MethodPost, path: "/api/enrichment/products%2Fskus", key: both, body: `{"skus":["SKU-1"]}`, status: 404},
	)
	for cut := 1; cut < len(item)+12; cut += 7 {
		cs = append(cs, post(fmt.Sprintf("truncated at %d", cut), submissions, (`{"items":[` + item + `]}`)[:cut], 400))
	}
	return cs
}

// TestHostileRequests plays every hostile request against one app: none
// answers 500, every error is PocketBase's JSON error body, no refused or
// unmatched submission stores a revision, and B's key never sees A's data.
func TestHostileRequests(t *testing.T) {
	f, app, h := served(t)
	// one revision of SKU-1, so that a wildcard sku filter would have something to match
	if r := request(h, http.MethodPost, submitURL, f.A.Keys["both"], `{"items":[{"sku":"SKU-1","name":"Control"}]}`); r.Code != 200 {
		t.Fatalf("control submission: %d %s", r.Code, r.Body)
	}
	if r := request(h, http.MethodGet, revisionsURL+"?sku=SKU-1", f.A.Keys["both"], ""); pageItems(t, r.Body.Bytes()) != 1 {
		t.Fatalf("control revision not listed: %s", r.Body)
	}
	cases := hostileCases(f)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := storedCounts(t, app)
			r := sendHostile(h, c)
			if r.Code == http.StatusInternalServerError {
				t.Fatalf("500: %.300s", r.Body)
			}
			var e struct {
				Status int `json:"status"`
			}
			if r.Code/100 != 3 && !jsontext.Value(r.Body.Bytes()).IsValid() {
				t.Fatalf("status %d, body not JSON: %.200s", r.Code, r.Body)
			}
			if r.Code >= 400 && (json.Unmarshal(r.Body.Bytes(), &e) != nil || e.Status != r.Code) {
				t.Errorf("status %d with body %.200s", r.Code, r.Body)
			}
			if c.check != nil {
				c.check(t, r.Code, r.Body.Bytes())
			} else if r.Code != c.status && c.status != 0 {
				t.Errorf("status %d, want %d: %.300s", r.Code, c.status, r.Body)
			}
			if c.key == f.B.Keys["both"] {
				for _, a := range []string{"Runner", "Trail", "Bulk item", "Shoes"} {
					if strings.Contains(r.Body.String(), a) {
						t.Errorf("B's key sees A's %q", a)
					}
				}
			}
			if after := storedCounts(t, app); after != before {
				t.Errorf("stored %s, was %s", after, before)
			}
		})
	}
	t.Logf("%d hostile requests", len(cases))
}

// TestHostileSubmissionIDs shows that externalSubmissionId is a plain
// value: wildcards and quotes replay only their own batch.
func TestHostileSubmissionIDs(t *testing.T) {
	f, app, h := served(t)
	body := func(id string) string {
		return `{"externalSubmissionId":` + hostileJSON(id) + `,"items":[{"sku":"NO-SUCH","name":"x"}]}`
	}
	ids := []string{"%", "_", "' OR 1=1 --", `" || apiClient != "`, `\`, "batch-1"}
	for round, want := range []string{"", "true"} {
		for _, id := range ids {
			r := request(h, http.MethodPost, submitURL, f.A.Keys["submit"], body(id))
			if r.Code != 200 || r.Header().Get(routes.ReplayedHeader) != want {
				t.Errorf("round %d, id %q: %d, replayed %q, want %q", round+1, id, r.Code, r.Header().Get(routes.ReplayedHeader), want)
			}
		}
	}
	if got := storedCounts(t, app); got != fmt.Sprintf("0 revisions, %d keys", len(ids)) {
		t.Errorf("stored %s", got)
	}
}

// storedCounts counts what a submission may store: revisions and idempotency keys.
func storedCounts(t testing.TB, app *tests.TestApp) string {
	var keys int
	if err := app.DB().Select("COUNT(*)").From("_enrichment_idempotency").Row(&keys); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d revisions, %d keys", countRevisions(t, app), keys)
}

// FuzzHTTPReadEndpoints (seeds in testdata/fuzz) sends an arbitrary query to every read endpoint and
// an arbitrary body to the SKU lookup through the whole HTTP stack: the
// answer is 200 or 400 (413 for a big body), never 500.
func FuzzHTTPReadEndpoints(f *testing.F) {
	fx := fixture.Get(f)
	app := fx.NewApp(f)
	f.Cleanup(app.Cleanup)
	h := handler(f, app)
	key := fx.A.Keys["both"]
	f.Fuzz(func(t *testing.T, query string, body []byte) {
		for _, path := range []string{"/api/enrichment/attribute-templates", "/api/enrichment/products", "/api/enrichment/acceptance-rate", "/api/enrichment/revisions"} {
			r := sendHostile(h, hostile{method: http.MethodGet, path: path, query: query, key: key})
			if r.Code != 200 && r.Code != 400 {
				t.Fatalf("GET %s?%q: %d %.200s", path, query, r.Code, r.Body)
			}
		}
		r := sendHostile(h, hostile{method: http.MethodPost, path: "/api/enrichment/products/skus", query: query, key: key, body: string(body)})
		if r.Code != 200 && r.Code != 400 && r.Code != 413 {
			t.Fatalf("POST skus %q: %d %.200s", body, r.Code, r.Body)
		}
	})
}
