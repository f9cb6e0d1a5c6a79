package routes

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json/v2"
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

// generationTag is the tag of an answer built only from what the request's
// organization's generation covers (its products, templates, options,
// brands and keys: store/generations.go), so it is known before the answer
// is computed. The request's URL says the rest (page, filters).
func generationTag(e *core.RequestEvent) (string, error) {
	org := requestOrg(e)
	generation, err := store.New(e.App).Generation(org)
	if err != nil {
		return "", err
	}
	return `W/"` + tagEpoch + "-" + string(org) + "-" + strconv.FormatInt(generation, 10) + `"`, nil
}

// dataTag is the tag of an answer that no generation covers (revisions,
// metrics, the change feed): a hash of its JSON. The answers it serves are
// small or cheap next to the queries that make them.
func dataTag(v any) (string, error) {
	h := sha256.New()
	if err := json.MarshalWrite(h, v); err != nil {
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
	tag, err := dataTag(v)
	if err != nil {
		return internalError(e, "tag the answer", err)
	}
	if notModified(e, tag) {
		return nil
	}
	return e.JSON(http.StatusOK, v)
}
