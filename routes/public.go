package routes

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// RegisterPublic serves the pages of pb_public at /: the copy embedded in the
// binary, or a pb_public folder beside the data folder when there is one, so
// an operator can change the pages without rebuilding.
func RegisterPublic(app core.App, embedded fs.FS) {
	app.OnServe().Bind(&hook.Handler[*core.ServeEvent]{
		Id: "enrichmentPublic",
		Func: func(se *core.ServeEvent) error {
			pages := embedded
			dir := filepath.Join(filepath.Dir(se.App.DataDir()), "pb_public")
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				pages = os.DirFS(dir)
				se.App.Logger().Info("enrichment: serving pages from " + dir)
			}
			se.Router.GET("/{path...}", (&pageServer{fsys: pages, files: map[string]*pageFile{}}).serve)
			return se.Next()
		},
	})
}

// maxKeptPage bounds the files the page server keeps in memory, compressed;
// a larger file (an operator's video, say) is served from its folder as is.
const maxKeptPage = 4 << 20

// pageServer serves the pages with validators and compression: each file is
// read, tagged and compressed once (again when an operator's copy changes),
// and answered with ETag and Cache-Control: no-cache, so a browser asks
// again each time and is answered 304 while the file is the same.
type pageServer struct {
	fsys  fs.FS
	mu    sync.Mutex
	files map[string]*pageFile
}

// pageFile is one file of the pages as it is sent.
type pageFile struct {
	modTime     time.Time
	size        int64
	contentType string
	etag        string
	plain       []byte
	gzip, zstd  []byte // nil when not worth it
}

func (p *pageServer) serve(e *core.RequestEvent) error {
	name := strings.TrimPrefix(path.Clean("/"+e.Request.PathValue("path")), "/")
	info, err := fs.Stat(p.fsys, cmp.Or(name, "."))
	if err == nil && info.IsDir() {
		name = path.Join(name, "index.html")
		info, err = fs.Stat(p.fsys, name)
	}
	if err != nil || info.IsDir() {
		return e.NotFoundError("", nil)
	}
	if info.Size() > maxKeptPage {
		http.ServeFileFS(e.Response, e.Request, p.fsys, name)
		return nil
	}
	f, err := p.file(name, info)
	if err != nil {
		return internalError(e, "read page "+name, err)
	}
	h := e.Response.Header()
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", f.etag)
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Type", f.contentType)
	if matchesTag(e.Request.Header.Get("If-None-Match"), f.etag) {
		e.Response.WriteHeader(http.StatusNotModified)
		return nil
	}
	body := f.plain
	switch acceptedEncoding(e.Request.Header.Get("Accept-Encoding"), f.zstd != nil, f.gzip != nil) {
	case "zstd":
		body = f.zstd
		h.Set("Content-Encoding", "zstd")
	case "gzip":
		body = f.gzip
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	e.Response.WriteHeader(http.StatusOK)
	if e.Request.Method != http.MethodHead {
		_, err = e.Response.Write(body)
	}
	return err
}

// file returns name as it is sent, read anew when its size or time changed.
func (p *pageServer) file(name string, info fs.FileInfo) (*pageFile, error) {
	p.mu.Lock()
	f, ok := p.files[name]
	p.mu.Unlock()
	if ok && f.size == info.Size() && f.modTime.Equal(info.ModTime()) {
		return f, nil
	}
	plain, err := fs.ReadFile(p.fsys, name)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(plain)
	f = &pageFile{modTime: info.ModTime(), size: info.Size(), plain: plain,
		etag:        `W/"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`,
		contentType: cmp.Or(mime.TypeByExtension(path.Ext(name)), http.DetectContentType(plain))}
	if len(plain) >= minCompressed && compressible(f.contentType) {
		if f.gzip, err = gzipped(plain); err != nil {
			return nil, err
		}
		if f.zstd = zstdEncoder.EncodeAll(plain, nil); len(f.zstd) >= len(plain) {
			f.zstd = nil
		}
		if len(f.gzip) >= len(plain) {
			f.gzip = nil
		}
	}
	p.mu.Lock()
	p.files[name] = f
	p.mu.Unlock()
	return f, nil
}

// zstdEncoder compresses the pages, at its best level: it runs once a file.
var zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))

func gzipped(plain []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(plain); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// compressible tells the text types, which compress, from images and
// archives, which are compressed already.
func compressible(contentType string) bool {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "javascript") ||
		strings.HasSuffix(t, "json") || strings.HasSuffix(t, "+xml") || t == "image/svg+xml"
}

// acceptedEncoding picks zstd, else gzip, of those on offer that an
// Accept-Encoding header accepts (q above 0, by name or by "*"); "" for
// neither.
func acceptedEncoding(header string, zstdOffered, gzipOffered bool) string {
	named, others := acceptEncoding(header)
	allows := func(encoding string) bool {
		if ok, said := named[encoding]; said {
			return ok
		}
		return others
	}
	switch {
	case zstdOffered && allows("zstd"):
		return "zstd"
	case gzipOffered && allows("gzip"):
		return "gzip"
	}
	return ""
}
