package routes_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/klauspost/compress/zstd"
)

// TestPages checks that the pages are compressed once and revalidated: an
// ETag, 304 while the file is the same, zstd or gzip as accepted.
func TestPages(t *testing.T) {
	script := strings.Repeat("export const answer = 42; // the page's code\n", 100)
	pages := fstest.MapFS{
		"index.html": {Data: []byte("<!doctype html><title>Review</title>")},
		"app.js":     {Data: []byte(script)},
		"logo.png":   {Data: bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 600)},
	}
	f := fixture.Get(t)
	app := f.NewAppWithPages(t, pages)
	defer app.Cleanup()
	h := handler(t, app)
	page := func(url string, headers ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, url, nil)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}

	index := page("/")
	if index.Code != 200 || !strings.Contains(index.Body.String(), "<title>Review</title>") ||
		!strings.HasPrefix(index.Header().Get("Content-Type"), "text/html") || index.Header().Get("Content-Encoding") != "" {
		t.Fatalf("/: %d %q %q", index.Code, index.Header().Get("Content-Type"), index.Body)
	}
	plain := page("/app.js")
	tag := plain.Header().Get("ETag")
	if plain.Code != 200 || plain.Body.String() != script || tag == "" || plain.Header().Get("Cache-Control") != "no-cache" ||
		!strings.Contains(plain.Header().Get("Vary"), "Accept-Encoding") {
		t.Fatalf("/app.js: %d, ETag %q, Cache-Control %q, Vary %q", plain.Code, tag, plain.Header().Get("Cache-Control"), plain.Header().Get("Vary"))
	}
	if again := page("/app.js", "If-None-Match", tag, "Accept-Encoding", "gzip"); again.Code != 304 || again.Body.Len() != 0 {
		t.Errorf("/app.js revalidated: %d with %d bytes, want 304 and none", again.Code, again.Body.Len())
	}
	gz := page("/app.js", "Accept-Encoding", "gzip")
	if gz.Header().Get("Content-Encoding") != "gzip" || gz.Header().Get("ETag") != tag {
		t.Fatalf("gzip: encoding %q, tag %q", gz.Header().Get("Content-Encoding"), gz.Header().Get("ETag"))
	}
	if zr, err := gzip.NewReader(gz.Body); err != nil {
		t.Error(err)
	} else if body, err := io.ReadAll(zr); err != nil || string(body) != script {
		t.Errorf("gzip decodes to %d bytes (%v)", len(body), err)
	}
	zs := page("/app.js", "Accept-Encoding", "gzip, zstd")
	if zs.Header().Get("Content-Encoding") != "zstd" || zs.Body.Len()*5 > len(script) {
		t.Fatalf("zstd: encoding %q, %d bytes for %d", zs.Header().Get("Content-Encoding"), zs.Body.Len(), len(script))
	}
	if zr, err := zstd.NewReader(zs.Body); err != nil {
		t.Error(err)
	} else if body, err := io.ReadAll(zr); err != nil || string(body) != script {
		t.Errorf("zstd decodes to %d bytes (%v)", len(body), err)
	}
	if any := page("/app.js", "Accept-Encoding", "*"); any.Header().Get("Content-Encoding") != "zstd" {
		t.Errorf("Accept-Encoding *: encoding %q, want zstd", any.Header().Get("Content-Encoding"))
	}
	if png := page("/logo.png", "Accept-Encoding", "gzip, zstd"); png.Code != 200 || png.Header().Get("Content-Encoding") != "" {
		t.Errorf("an image: %d, encoding %q; images are not compressed again", png.Code, png.Header().Get("Content-Encoding"))
	}
	if missing := page("/nothing.js"); missing.Code != 404 {
		t.Errorf("a missing page: %d", missing.Code)
	}
}
