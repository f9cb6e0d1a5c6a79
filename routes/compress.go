package routes

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"
)

// minCompressed is the smallest answer worth compressing: below it the
// encodings' own framing eats most of the gain.
const minCompressed = 1024

// compressedPrefixes are the paths whose answers are compressed: the
// service's API, and PocketBase's records API, which the review page reads
// (the realtime stream, at /api/realtime, is left alone).
var compressedPrefixes = []string{Prefix + "/", "/api/collections/"}

// compressAnswers compresses every answer under compressedPrefixes with zstd or gzip,
// whichever the request's Accept-Encoding allows (zstd first), when it is
// minCompressed bytes or more, and says Vary: Accept-Encoding. It uses
// klauspost/compress's gzhttp, a maintained handler that negotiates, buffers
// up to the threshold and pools its encoders, rather than code of our own.
// The pages compress themselves once (public.go).
func compressAnswers() *hook.Handler[*core.RequestEvent] {
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(minCompressed), gzhttp.EnableZstd(true), gzhttp.PreferZstd(true))
	if err != nil {
		panic("routes: the compression options: " + err.Error()) // note: constant options; a mistake here is a programming error
	}
	return &hook.Handler[*core.RequestEvent]{
		Id: "enrichmentCompress",
		// note: inside PocketBase's logger and panic recovery (-1040, -1030),
		// outside every other middleware, so refusals (401, 413, 429, 503)
		// are compressed like answers
		Priority: -1025,
		Func: func(e *core.RequestEvent) error {
			if !slices.ContainsFunc(compressedPrefixes, func(p string) bool { return strings.HasPrefix(e.Request.URL.Path, p) }) {
				return e.Next()
			}
			if h := e.Request.Header.Get("Accept-Encoding"); strings.Contains(h, "*") {
				e.Request.Header.Set("Accept-Encoding", explicitEncodings(h)) // note: gzhttp reads names only
			}
			var err error
			wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				outer := e.Response
				e.Response, e.Request = w, r
				err = e.Next()
				if err != nil {
					// note: the error's answer goes through the compressor
					// too, which must write it before it is closed; the router
					// then finds the answer written and leaves it
					router.ErrorHandler(w, r, err)
				}
				e.Response = outer
			})).ServeHTTP(e.Response, e.Request)
			return err
		},
	}
}

// explicitEncodings is an Accept-Encoding with its "*" (any encoding, RFC
// 9110), when it allows one, spelled out as the encodings this service
// offers that the header does not name: "*" is zstd and gzip, "gzip;q=0, *"
// zstd alone.
func explicitEncodings(header string) string {
	named, others := acceptEncoding(header)
	if !others {
		return header
	}
	for _, offered := range []string{"zstd", "gzip"} {
		if _, said := named[offered]; !said {
			header += ", " + offered
		}
	}
	return header
}

// acceptEncoding reads an Accept-Encoding header: whether it allows each
// encoding it names (q above 0), and whether its "*" allows the others.
func acceptEncoding(header string) (named map[string]bool, others bool) {
	named = map[string]bool{}
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			q, _ = strconv.ParseFloat(v, 64)
		}
		if name = strings.ToLower(strings.TrimSpace(name)); name == "*" {
			others = q > 0
		} else if name != "" {
			named[name] = q > 0
		}
	}
	return named, others
}
