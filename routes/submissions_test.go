package routes_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

const submitURL = "/api/enrichment/products/submissions"

// result is a submission result as a client decodes it.
type result struct {
	SKU           string   `json:"sku"`
	ProductID     *int64   `json:"productId"`
	RevisionID    *int64   `json:"revisionId"`
	Status        string   `json:"status"`
	IgnoredFields []string `json:"ignoredFields"`
}

// countRevisions counts the stored revisions.
func countRevisions(t testing.TB, app core.App) int {
	t.Helper()
	var n int
	if err := app.DB().Select("COUNT(*)").From("revisions").Row(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSubmissionResults(t *testing.T) {
	f := fixture.Get(t)
	a := f.A.Products
	body := `{"externalSubmissionId":"batch-1","items":[
		{"sku":"SKU-1","confidence":90,"name":"Runner Pro","description":"Lighter.","gtin":"x","id":5,"brand":{"name":"X"}},
		{"sku":"NO-SUCH-SKU","name":"Whatever"},
		{"sku":"SKU-DUP","name":"Ambiguous"},
		{"sku":"SKU-OLD","name":"Inactive product"},
		{"sku":"SKU-M","slug":"  ","attributes":[],"files":null,"confidence":10},
		{"sku":"NO-SUCH-SKU-2"},
		{"sku":"SKU-M-RED","attributes":[{"attribute":"Color","detail":"Crimson","option":{"optionId":999999}},{"attribute":"Lining","detail":"Mesh","option":null}],"files":["https://docs.example/care.pdf"],"wat":1},
		{"sku":"SKU-1","slug":"runner-pro","confidence":null}
	]}`
	run(t, f, []call{{name: "every status, in order, with ignored fields", method: http.MethodPost, url: submitURL,
		key: f.A.Keys["submit"], body: body, status: 200,
		check: func(t testing.TB, app *tests.TestApp, raw []byte) {
			got := decode[[]result](t, raw)
			if len(got) != 8 {
				t.Fatalf("%d results: %s", len(got), raw)
			}
			want := []struct {
				sku, status string
				product     int64
				ignored     string
			}{
				{"SKU-1", "CREATED", a["SKU-1"], "gtin,id,brand"},
				{"NO-SUCH-SKU", "UNMATCHED", 0, ""},
				{"SKU-DUP", "UNMATCHED", 0, ""},
				{"SKU-OLD", "UNMATCHED", 0, ""},
				{"SKU-M", "REJECTED_FIELDS", a["SKU-M"], "slug,attributes,files"},
				{"NO-SUCH-SKU-2", "UNMATCHED", 0, ""},
				{"SKU-M-RED", "CREATED", a["SKU-M-RED"], "wat"},
				{"SKU-1", "CREATED", a["SKU-1"], ""},
			}
			var revisions []int64
			for i, w := range want {
				g := got[i]
				if g.SKU != w.sku || g.Status != w.status || strings.Join(g.IgnoredFields, ",") != w.ignored || g.IgnoredFields == nil {
					t.Errorf("item %d = %+v, want %+v", i, g, w)
				}
				if (w.product == 0) != (g.ProductID == nil) || (g.ProductID != nil && *g.ProductID != w.product) {
					t.Errorf("item %d productId = %v, want %d", i, g.ProductID, w.product)
				}
				if (w.status == "CREATED") != (g.RevisionID != nil) {
					t.Errorf("item %d revisionId = %v", i, g.RevisionID)
				}
				if g.RevisionID != nil {
					revisions = append(revisions, *g.RevisionID)
				}
			}
			if len(revisions) != 3 || revisions[1] != revisions[0]+1 || revisions[2] != revisions[1]+1 {
				t.Errorf("revision ids %v, want 3 consecutive", revisions)
			}
			if n := countRevisions(t, app); n != 3 {
				t.Errorf("%d revisions stored, want 3", n)
			}
			checkStoredRevision(t, app, f, revisions)
		}}})
}

// checkStoredRevision reads back what the first batch stored.
func checkStoredRevision(t testing.TB, app core.App, f *fixture.Fixture, ids []int64) {
	rec, err := app.FindRecordById("revisions", fmt.Sprint(ids[0]))
	if err != nil {
		t.Fatal(err)
	}
	if rec.GetString("status") != enrichment.StatusPending || rec.GetInt("confidence") != 90 ||
		rec.GetString("confidenceBand") != "80-100" || rec.GetString("organization") != string(f.A.Org) ||
		rec.GetString("apiClient") != fmt.Sprint(f.A.Clients["submit"]) || rec.GetString("externalSubmissionId") != "batch-1" ||
		rec.GetString("sku") != "SKU-1" || rec.GetString("product") != fmt.Sprint(f.A.Products["SKU-1"]) {
		t.Errorf("stored revision: %v", rec.PublicExport())
	}
	sameJSON(t, "proposed", rec.Get("proposed"), `{"name":"Runner Pro","description":"Lighter."}`)
	sameJSON(t, "base", rec.Get("base"), `{"name":"Runner","description":"A light running shoe."}`)

	red, err := app.FindRecordById("revisions", fmt.Sprint(ids[1]))
	if err != nil {
		t.Fatal(err)
	}
	// the unknown option id is unlinked; base keeps the product's whole list
	sameJSON(t, "proposed attributes", red.Get("proposed"), `{"attributes":[{"attribute":"Color","detail":"Crimson"},
		{"attribute":"Lining","detail":"Mesh"}],"files":["https://docs.example/care.pdf"]}`)
	if red.GetString("confidenceBand") != "" || red.GetInt("confidence") != 0 {
		t.Errorf("no confidence stored as %d/%q", red.GetInt("confidence"), red.GetString("confidenceBand"))
	}
	var base struct {
		Attributes []enrichment.StoredAttribute `json:"attributes"`
		Files      []string                     `json:"files"`
	}
	if err := red.UnmarshalJSONField("base", &base); err != nil || len(base.Attributes) != 2 || base.Files == nil {
		t.Errorf("base = %+v, %v", base, err)
	}
}

func TestSubmissionValidation(t *testing.T) {
	f := fixture.Get(t)
	key := f.A.Keys["submit"]
	items := func(n int) string {
		return `{"items":[` + strings.TrimSuffix(strings.Repeat(`{"sku":"SKU-1","name":"N"},`, n), ",") + `]}`
	}
	bad := func(name, body string, content ...string) call {
		return call{name: name, method: http.MethodPost, url: submitURL, key: key, body: body, status: 400, content: content,
			check: func(t testing.TB, app *tests.TestApp, _ []byte) {
				if n := countRevisions(t, app); n != 0 {
					t.Errorf("a refused batch stored %d revisions", n)
				}
			}}
	}
	run(t, f, []call{
		bad("no items", `{}`, `"message":"Submission must contain at least one item."`),
		bad("empty items", `{"items":[]}`, "Submission must contain at least one item."),
		bad("null items", `{"items":null}`, "Submission must contain at least one item."),
		bad("1001 items", items(1001), `"message":"Submission exceeds the maximum of 1000 items."`),
		bad("items not an array", `{"items":{"sku":"SKU-1"}}`, `"items":{"code":"validation_invalid_type"`),
		bad("not JSON", `items=1`, "not valid JSON"),
		bad("an item not an object", `{"items":[{"sku":"SKU-1","name":"ok"},"SKU-1"]}`, `"items.1":{"code":"validation_invalid_type"`),
		bad("item without sku", `{"items":[{"sku":"SKU-1","name":"ok"},{"name":"x"}]}`, `"items.1.sku":{`),
		bad("sku not a string", `{"items":[{"sku":17,"name":"x"}]}`, `"items.0.sku":{`),
		bad("confidence above 100", `{"items":[{"sku":"SKU-1","name":"ok"},{"sku":"SKU-1","name":"ok"},{"sku":"SKU-1","name":"ok"},{"sku":"SKU-1","confidence":101,"name":"x"}]}`,
			`"items.3.confidence":{"code":"validation_invalid_confidence"`, `"message":"Invalid items.3.confidence: must be an integer from 0 to 100."`),
		bad("negative confidence", `{"items":[{"sku":"SKU-1","confidence":-1,"name":"x"}]}`, `"items.0.confidence"`),
		bad("fractional confidence", `{"items":[{"sku":"SKU-1","confidence":50.5,"name":"x"}]}`, `"items.0.confidence"`),
		bad("confidence as a string", `{"items":[{"sku":"SKU-1","confidence":"50","name":"x"}]}`, `"items.0.confidence"`),
		bad("name not a string", `{"items":[{"sku":"SKU-1","name":5}]}`, `"items.0.name"`),
		bad("attributes not an array", `{"items":[{"sku":"SKU-1","attributes":"Color"}]}`, `"items.0.attributes"`),
		bad("attribute not an object", `{"items":[{"sku":"SKU-1","attributes":[{"attribute":"Color","detail":"Red"},"Size"]}]}`, `"items.0.attributes.1"`),
		bad("option not an object", `{"items":[{"sku":"SKU-1","attributes":[{"attribute":"Color","detail":"Red","option":3}]}]}`, `"items.0.attributes.0"`),
		bad("bad option id", `{"items":[{"sku":"SKU-1","attributes":[{"attribute":"Color","detail":"Red","option":{"optionId":-3}}]}]}`, `"items.0.attributes.0.option.optionId"`),
		bad("a file not a string", `{"items":[{"sku":"SKU-1","files":["a",2]}]}`, `"items.0.files.1"`),
		bad("externalSubmissionId not a string", `{"externalSubmissionId":5,"items":[{"sku":"SKU-1","name":"x"}]}`, `"externalSubmissionId"`),
		bad("externalSubmissionId of 256 characters", `{"externalSubmissionId":"`+strings.Repeat("é", 256)+`","items":[{"sku":"SKU-1","name":"x"}]}`,
			`"externalSubmissionId":{"code":"validation_length_too_long"`),
		{name: "externalSubmissionId of 255 characters, 510 bytes", method: http.MethodPost, url: submitURL + "?dryRun=true", key: key,
			body: `{"externalSubmissionId":"` + strings.Repeat("é", 255) + `","items":[{"sku":"SKU-1","name":"x"}]}`, status: 200,
			content: []string{`"CREATED"`}},
		{name: "bad dryRun", method: http.MethodPost, url: submitURL + "?dryRun=maybe", key: key, status: 400,
			body: `{"items":[{"sku":"SKU-1","name":"x"}]}`, content: []string{`"data":{}`, `"message":"Invalid dryRun: must be true or false."`}},
		{name: "1000 items is the maximum", method: http.MethodPost, url: submitURL, key: key, body: items(1000), status: 200,
			check: func(t testing.TB, app *tests.TestApp, raw []byte) {
				if got := decode[[]result](t, raw); len(got) != 1000 || got[999].Status != "CREATED" {
					t.Errorf("%d results", len(got))
				}
				if n := countRevisions(t, app); n != 1000 {
					t.Errorf("%d revisions stored", n)
				}
			}},
		{name: "confidence 0, 100 and 80.0 are integers", method: http.MethodPost, url: submitURL, key: key, status: 200,
			body:    `{"items":[{"sku":"SKU-1","confidence":0,"name":"a"},{"sku":"SKU-1","confidence":100,"name":"b"},{"sku":"SKU-1","confidence":80.0,"name":"c"}]}`,
			content: []string{`"status":"CREATED"`}, absent: []string{"UNMATCHED"}},
	})
}

func TestSubmissionAccess(t *testing.T) {
	f := fixture.Get(t)
	body := `{"items":[{"sku":"SKU-1","name":"x"},{"sku":"B-ONLY","name":"y"}]}`
	post := func(name, key string, status int, content ...string) call {
		return call{name: name, method: http.MethodPost, url: submitURL, key: key, body: body, status: status, content: content}
	}
	run(t, f, []call{
		post("no key", "", 401, `"status":401`),
		post("revoked key", f.A.Keys["revoked"], 401, `"message":"Invalid or inactive API key."`),
		post("read-only key", f.A.Keys["read"], 403, `"message":"Missing required scope: catalog:submit"`),
		post("key with both scopes", f.A.Keys["both"], 200, `"status":"CREATED"`),
		// B's key matches B's SKU-1 and B-ONLY; A's key cannot reach B-ONLY
		post("other organization's products are unmatched", f.A.Keys["submit"], 200,
			fmt.Sprintf(`{"sku":"SKU-1","productId":%d`, f.A.Products["SKU-1"]), `{"sku":"B-ONLY","productId":null,"revisionId":null,"status":"UNMATCHED"`),
		post("B's key matches B's products", f.B.Keys["submit"], 200,
			fmt.Sprintf(`{"sku":"SKU-1","productId":%d`, f.B.Products["SKU-1"]), fmt.Sprintf(`{"sku":"B-ONLY","productId":%d`, f.B.Products["B-ONLY"])),
		{name: "GET is not allowed", url: submitURL, key: f.A.Keys["submit"], status: 405,
			content: []string{`"status":405`, `"message":"Method not allowed; use POST."`}},
		{name: "a body over 16 MiB", method: http.MethodPost, url: submitURL, key: f.A.Keys["submit"], status: 413,
			content: []string{`"status":413`, `"message":"Request entity too large."`},
			body:    `{"items":[{"sku":"SKU-1","description":"` + strings.Repeat("x", 17<<20) + `"}]}`},
	})
}

func TestSubmissionDryRun(t *testing.T) {
	f, app, h := served(t)
	body := `{"externalSubmissionId":"dry","items":[{"sku":"SKU-1","name":"x","gtin":"1"},{"sku":"NOPE","name":"y"},{"sku":"SKU-M","name":""}]}`
	dry := request(h, http.MethodPost, submitURL+"?dryRun=true", f.A.Keys["submit"], body)
	if dry.Code != 200 {
		t.Fatalf("dry run: %d %s", dry.Code, dry.Body)
	}
	if n := countRevisions(t, app); n != 0 {
		t.Fatalf("dry run stored %d revisions", n)
	}
	real := request(h, http.MethodPost, submitURL, f.A.Keys["submit"], body)
	dryResults, realResults := decode[[]result](t, dry.Body.Bytes()), decode[[]result](t, real.Body.Bytes())
	for i := range realResults {
		d, r := dryResults[i], realResults[i]
		if d.RevisionID != nil || d.Status != r.Status || (d.ProductID == nil) != (r.ProductID == nil) ||
			(d.ProductID != nil && *d.ProductID != *r.ProductID) ||
			strings.Join(d.IgnoredFields, ",") != strings.Join(r.IgnoredFields, ",") {
			t.Errorf("item %d: dry %+v, real %+v", i, d, r)
		}
	}
	if realResults[0].RevisionID == nil || countRevisions(t, app) != 1 {
		t.Errorf("the real submission after a dry run stored %d", countRevisions(t, app))
	}
}

func TestSubmissionIdempotency(t *testing.T) {
	f, app, h := served(t)
	key := f.A.Keys["submit"]
	first := `{"externalSubmissionId":"batch-7","items":[{"sku":"SKU-1","name":"A"},{"sku":"SKU-M","name":"B"}]}`
	sameReformatted := "{ \"items\": [ {\"name\":\"A\", \"sku\":\"SKU-1\"}, {\"sku\":\"SKU-M\",\"name\":\"B\"} ],\n \"externalSubmissionId\": \"batch-7\" }"

	r1 := request(h, http.MethodPost, submitURL, key, first)
	if r1.Code != 200 || r1.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %s", r1.Code, r1.Body)
	}
	r2 := request(h, http.MethodPost, submitURL, key, sameReformatted)
	if r2.Code != 200 || r2.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %q %s", r2.Code, r2.Header().Get("Idempotent-Replayed"), r2.Body)
	}
	sameJSON(t, "replayed body", decode[any](t, r2.Body.Bytes()), r1.Body.String())
	if n := countRevisions(t, app); n != 2 {
		t.Errorf("replay created revisions: %d stored", n)
	}

	changed := strings.Replace(first, `"name":"B"`, `"name":"C"`, 1)
	if r := request(h, http.MethodPost, submitURL, key, changed); r.Code != 422 {
		t.Errorf("same id, different body: %d %s", r.Code, r.Body)
	}
	// the same id from another client of the same organization is its own
	if r := request(h, http.MethodPost, submitURL, f.A.Keys["both"], first); r.Code != 200 || r.Header().Get("Idempotent-Replayed") != "" {
		t.Errorf("other client, same id: %d %q", r.Code, r.Header().Get("Idempotent-Replayed"))
	}
	if n := countRevisions(t, app); n != 4 {
		t.Errorf("%d revisions after the other client's batch, want 4", n)
	}
	// a refused (400) request stores nothing, so the id can be used once fixed
	broken := `{"externalSubmissionId":"batch-8","items":[{"sku":"SKU-1","confidence":500,"name":"A"}]}`
	if r := request(h, http.MethodPost, submitURL, key, broken); r.Code != 400 {
		t.Fatalf("broken: %d", r.Code)
	}
	fixed := strings.Replace(broken, "500", "50", 1)
	if r := request(h, http.MethodPost, submitURL, key, fixed); r.Code != 200 || r.Header().Get("Idempotent-Replayed") != "" {
		t.Errorf("fixed retry: %d %q %s", r.Code, r.Header().Get("Idempotent-Replayed"), r.Body)
	}
	// a dry run neither consults nor records the id
	if r := request(h, http.MethodPost, submitURL+"?dryRun=true", key, changed); r.Code != 200 {
		t.Errorf("dry run with a used id: %d", r.Code)
	}
	var keys int
	if err := app.DB().Select("COUNT(*)").From("_enrichment_idempotency").Where(dbx.HashExp{"key": "batch-7"}).Row(&keys); err != nil || keys != 2 {
		t.Errorf("stored keys for batch-7: %d %v", keys, err)
	}
}

// TestSubmissionIdempotencyConcurrent fires the same keyed batch from many
// goroutines at once: exactly one creates it; the others get it replayed or
// 409 while it is in flight; nothing is stored twice.
func TestSubmissionIdempotencyConcurrent(t *testing.T) {
	f, app, h := served(t)
	items := strings.TrimSuffix(strings.Repeat(`{"sku":"SKU-1","name":"Concurrent"},`, 1000), ",")
	body := `{"externalSubmissionId":"race","items":[` + items + `]}`

	const callers = 12
	codes := make(chan string, callers)
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			r := request(h, http.MethodPost, submitURL, f.A.Keys["submit"], body)
			codes <- fmt.Sprintf("%d/%s", r.Code, r.Header().Get("Idempotent-Replayed"))
		})
	}
	wg.Wait()
	close(codes)
	seen := map[string]int{}
	for c := range codes {
		seen[c]++
	}
	if seen["200/"] != 1 || seen["200/"]+seen["200/true"]+seen["409/"] != callers {
		t.Errorf("outcomes %v: want one 200, the rest replays or 409", seen)
	}
	if n := countRevisions(t, app); n != 1000 {
		t.Errorf("%d revisions stored, want 1000", n)
	}
	t.Logf("outcomes: %v", seen)
}
