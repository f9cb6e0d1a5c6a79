package routes

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json/v2"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// Validators of the GET answers: an ETag on each, and 304 with no body when
// the request's If-None-Match names it. Tags are weak (W/"…"): the same
// answer is sent in several encodings (compress.go), and a weak tag
// compares equal across them.

// tagEpoch starts every tag, so that a new process (a new release, whose
// answers may be shaped differently) never confirms a tag of an old one.
var tagEpoch = strconv.FormatInt(clock.Wall().UnixNano(), 36)

// A tag belongs to its URL (path and query), the request's organization
// and the data: each is hashed into it, so that a tag kept for one page,
// page size, filter or route is never confirmed for another, and two
// organizations' equal answers never share one.

// generationTag is the tag of an answer built only from what the request's
// organization's generation covers (its products, templates, options,
// brands and keys: store/generations.go), so it is known before the answer
// is computed.
func generationTag(e *core.RequestEvent) (string, error) {
	generation, err := store.New(e.App).Generation(requestOrg(e))
	if err != nil {
		return "", err
	}
	// note: with the asking client's catalog, so clients of one
	// organization with different selections never share a tag
	return requestTag(e, func(h io.Writer) error {
		_, err := io.WriteString(h, strconv.FormatInt(generation, 10)+"\x00"+requestClient(e).Catalog.Key())
		return err
	})
}

// dataTag is the tag of an answer that no generation covers (revisions,
// metrics, the change feed): a hash of its JSON. The answers it serves are
// small or cheap next to the queries that make them.
func dataTag(e *core.RequestEvent, v any) (string, error) {
	return requestTag(e, func(h io.Writer) error { return json.MarshalWrite(h, v) })
}

// requestTag hashes the request's organization and URL, then what data
// writes, into a weak tag.
func requestTag(e *core.RequestEvent, data func(io.Writer) error) (string, error) {
	h := sha256.New()
	// note: NUL cannot appear in an organization id or a request's URL
	_, _ = io.WriteString(h, string(requestOrg(e))+"\x00"+e.Request.URL.EscapedPath()+"?"+e.Request.URL.RawQuery+"\x00")
	if err := data(h); err != nil {
		return "", err
	}
	return `W/"` + tagEpoch + "-" + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18]) + `"`, nil
}

// notModified sets the answer's ETag and, when the request's If-None-Match
// names it, answers 304 and reports true: the caller sends nothing more.
func notModified(e *core.RequestEvent, tag string) bool {
	e.Response.Header().Set("ETag", tag)
	if !matchesTag(e.Request.Header.Get("If-None-Match"), tag) {
		return false
	}
	e.Response.WriteHeader(http.StatusNotModified)
	return true
}

// matchesTag applies If-None-Match's weak comparison (RFC 9110 13.1.2):
// "*", or any listed tag equal to tag once the W/ prefixes are set aside.
func matchesTag(header, tag string) bool {
	if header == "" {
		return false
	}
	want := strings.TrimPrefix(tag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == want {
			return true
		}
	}
	return false
}

// jsonTagged answers v as JSON with its dataTag, or 304 when the client
// holds it already.
func jsonTagged(e *core.RequestEvent, v any) error {
	tag, err := dataTag(e, v)
	if err != nil {
		return internalError(e, "tag the answer", err)
	}
	if notModified(e, tag) {
		return nil
	}
	return e.JSON(http.StatusOK, v)
}
