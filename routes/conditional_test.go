package routes_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/klauspost/compress/zstd"
)

// get makes a GET with key and extra headers (name, value, ...).
func get(h http.Handler, url, key string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, url, nil)
	req.Header.Set(routes.KeyHeader, key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestCompressedAnswers(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	defer app.Cleanup()
	h := handler(t, app)
	key := f.A.Keys["both"]
	const export = "/api/enrichment/products?pageSize=100"

	plain := get(h, export, key)
	if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" || plain.Body.Len() < 1024 {
		t.Fatalf("without Accept-Encoding: %d, encoding %q, %d bytes", plain.Code, plain.Header().Get("Content-Encoding"), plain.Body.Len())
	}
	decoders := map[string]func(io.Reader) ([]byte, error){
		"gzip": func(r io.Reader) ([]byte, error) {
			zr, err := gzip.NewReader(r)
			if err != nil {
				return nil, err
			}
			return io.ReadAll(zr)
		},
		"zstd": func(r io.Reader) ([]byte, error) {
			zr, err := zstd.NewReader(r)
			if err != nil {
				return nil, err
			}
			defer zr.Close()
			return io.ReadAll(zr)
		},
	}
	for _, c := range []struct{ accept, want string }{
		{"gzip", "gzip"},
		{"zstd", "zstd"},
		{"gzip, deflate, br, zstd", "zstd"},
		{"gzip;q=1.0, zstd;q=0", "gzip"},
		{"*", "zstd"},
		{"zstd;q=0, *", "gzip"},
		{"br, *;q=0.5", "zstd"},
	} {
		res := get(h, export, key, "Accept-Encoding", c.accept)
		if got := res.Header().Get("Content-Encoding"); res.Code != 200 || got != c.want {
			t.Errorf("Accept-Encoding %q: %d, Content-Encoding %q, want %q", c.accept, res.Code, got, c.want)
			continue
		}
		if !strings.Contains(res.Header().Get("Vary"), "Accept-Encoding") {
			t.Errorf("Accept-Encoding %q: Vary %q", c.accept, res.Header().Get("Vary"))
		}
		body, err := decoders[c.want](res.Body)
		if err != nil || !bytes.Equal(body, plain.Body.Bytes()) {
			t.Errorf("Accept-Encoding %q: the decoded answer differs (%v; %d bytes against %d, %d sent)", c.accept, err, len(body), plain.Body.Len(), res.Body.Len())
		}
		if res.Body.Len()*5 > plain.Body.Len() {
			t.Errorf("Accept-Encoding %q: %d bytes for %d", c.accept, res.Body.Len(), plain.Body.Len())
		}
	}
	// under 1 KB stays as it is: an error, an empty list
	for _, url := range []string{"/api/enrichment/products?page=x", "/api/enrichment/changes?limit=1"} {
		res := get(h, url, key, "Accept-Encoding", "gzip, zstd")
		if res.Header().Get("Content-Encoding") != "" || res.Body.Len() >= 1024 {
			t.Errorf("%s: %d bytes sent as %q", url, res.Body.Len(), res.Header().Get("Content-Encoding"))
		}
	}
	// PocketBase's records API, which the review page reads, too
	records := httptest.NewRequest(http.MethodGet, "/api/collections/products/records?perPage=100", nil)
	records.Header.Set("Authorization", fixture.ReviewerToken(t, app, string(f.A.Org)))
	records.Header.Set("Accept-Encoding", "gzip")
	res := httptest.NewRecorder()
	h.ServeHTTP(res, records)
	if res.Code != 200 || res.Header().Get("Content-Encoding") != "gzip" {
		t.Errorf("records API: %d, Content-Encoding %q", res.Code, res.Header().Get("Content-Encoding"))
	}
	// a refusal goes through the compressor as well, and stays whole
	if res := get(h, export, "", "Accept-Encoding", "gzip"); res.Code != 401 || !strings.Contains(res.Body.String(), "Missing API key") {
		t.Errorf("no key: %d %s", res.Code, res.Body)
	}
}

// TestConditionalAnswers checks each GET answer's ETag: the same tag and a
// 304 without a body while nothing changed, a new tag after each kind of
// change that could change the answer.
func TestConditionalAnswers(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	defer app.Cleanup()
	h := handler(t, app)
	key := f.A.Keys["both"]
	sku1 := store.FormatID(f.A.Products["SKU-1"])
	editProduct := func(name string) func() {
		return func() {
			p, err := app.FindRecordById("products", sku1)
			if err != nil {
				t.Fatal(err)
			}
			p.Set("name", name)
			if err := app.Save(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	var submitted []string
	submit := func() {
		res := request(h, http.MethodPost, "/api/enrichment/products/submissions", key,
			`{"items":[{"sku":"SKU-1","confidence":90,"description":"Proposed `+string(rune('a'+len(submitted)))+`."}]}`)
		if res.Code != 200 || !strings.Contains(res.Body.String(), `"CREATED"`) {
			t.Fatalf("submission: %d %s", res.Code, res.Body)
		}
		submitted = append(submitted, res.Body.String())
	}
	decide := func() {
		recs, err := app.FindRecordsByFilter("revisions", "status = 'pending' && apiClient = {:c}", "", 1, 0,
			map[string]any{"c": store.FormatID(f.A.Clients["both"])})
		if err != nil || len(recs) == 0 {
			t.Fatalf("a pending revision to decide: %v", err)
		}
		recs[0].Set("status", "accepted")
		if err := app.Save(recs[0]); err != nil {
			t.Fatal(err)
		}
	}
	editTemplate := func() {
		recs, err := app.FindRecordsByFilter("attribute_templates", "organization = {:o} && active = true", "", 1, 0,
			map[string]any{"o": string(f.A.Org)})
		if err != nil || len(recs) == 0 {
			t.Fatalf("a template of A: %v", err)
		}
		recs[0].Set("name", recs[0].GetString("name")+" renamed")
		if err := app.Save(recs[0]); err != nil {
			t.Fatal(err)
		}
	}
	type change struct {
		what string
		do   func()
	}
	cases := []struct {
		url     string
		changes []change // in order; each must give the answer a new tag
	}{
		{"/api/enrichment/products?pageSize=50", []change{{"a dashboard edit", editProduct("Edited")}, {"a decision", decide}}},
		{"/api/enrichment/products?modifiedSince=0&pageSize=500", []change{{"a product edit", editProduct("Edited again")}}},
		{"/api/enrichment/attribute-templates", []change{{"a template edit", editTemplate}}},
		{"/api/enrichment/acceptance-rate", []change{{"a submission", submit}, {"a decision", decide}}},
		{"/api/enrichment/revisions?pageSize=500", []change{{"a submission", submit}, {"a decision", decide}}},
		{"", []change{{"a product edit", editProduct("Edited a third time")}}}, // the change feed's last page
	}
	submit() // for the export's decision to decide
	for _, c := range cases {
		if c.url == "" {
			c.url = lastChangesPage(t, h, key)
		}
		first := get(h, c.url, key)
		tag := first.Header().Get("ETag")
		if first.Code != 200 || !strings.HasPrefix(tag, `W/"`) {
			t.Fatalf("%s: %d, ETag %q", c.url, first.Code, tag)
		}
		again := get(h, c.url, key, "If-None-Match", tag)
		if again.Code != 304 || again.Body.Len() != 0 || again.Header().Get("ETag") != tag {
			t.Errorf("%s unchanged: %d with %d bytes and tag %q, want 304 and no body", c.url, again.Code, again.Body.Len(), again.Header().Get("ETag"))
		}
		if other := get(h, c.url, key, "If-None-Match", `W/"something-else", "another"`); other.Code != 200 {
			t.Errorf("%s with tags that do not match: %d", c.url, other.Code)
		}
		for _, change := range c.changes {
			change.do()
			res := get(h, c.url, key, "If-None-Match", tag)
			if res.Code != 200 || res.Header().Get("ETag") == tag {
				t.Errorf("%s after %s: %d, tag %q (was %q); want 200 and a new tag", c.url, change.what, res.Code, res.Header().Get("ETag"), tag)
			}
			tag = res.Header().Get("ETag")
		}
	}
	// another organization's key never confirms A's tag
	tag := get(h, "/api/enrichment/attribute-templates", key).Header().Get("ETag")
	if res := get(h, "/api/enrichment/attribute-templates", f.B.Keys["both"], "If-None-Match", tag); res.Code != 200 {
		t.Errorf("B with A's tag: %d", res.Code)
	}
}

// lastChangesPage follows the change feed to its last page and returns its URL.
func lastChangesPage(t *testing.T, h http.Handler, key string) string {
	url := "/api/enrichment/changes"
	for range 100 {
		res := get(h, url, key)
		page := decode[struct {
			Next    string `json:"next"`
			HasMore bool   `json:"hasMore"`
		}](t, res.Body.Bytes())
		if !page.HasMore {
			return url
		}
		url = "/api/enrichment/changes?after=" + page.Next
	}
	t.Fatal("the change feed did not end within 100 pages")
	return ""
}
