package routes

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// fuzzSubmissionPath is every key a refused submission may name in data.
var fuzzSubmissionPath = regexp.MustCompile(`^(externalSubmissionId|model|items(\.\d+(\.(sku|confidence|name|slug|description|` +
	`model|sources|files(\.\d+)?|attributes(\.\d+(\.option\.optionId)?)?))?)?)$`)

// fuzzSKUPath is every key a refused SKU lookup may name in data.
var fuzzSKUPath = regexp.MustCompile(`^skus(\.\d+)?$`)

// fuzzBodyEvent is a request event carrying body, as a handler receives it.
func fuzzBodyEvent(body []byte) *core.RequestEvent {
	e := &core.RequestEvent{}
	e.Request = httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	e.Response = httptest.NewRecorder()
	return e
}

// fuzzCheckRefusal checks that err is a 400 with a message and data keyed by
// paths that valid accepts, or by an undefined member's name.
func fuzzCheckRefusal(t *testing.T, err error, valid *regexp.Regexp) {
	t.Helper()
	var apiErr *router.ApiError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || strings.TrimSpace(apiErr.Message) == "" {
		t.Fatalf("refusal %#v: want a 400 with a message", err)
	}
	for key, v := range apiErr.Data {
		if b, _ := json.Marshal(v); strings.Contains(string(b), `"code":"validation_unknown_member"`) {
			continue // note: an undefined member is named as sent, whatever its name
		}
		if !valid.MatchString(key) {
			t.Fatalf("refusal %q names %q, not a JSON path of the request", apiErr.Message, key)
		}
	}
}

// FuzzSubmissionRequest feeds arbitrary bodies through the submission
// handler's steps (readSubmission, then validate) without storing anything.
// Either the batch is refused with a message and data keyed by JSON paths,
// or there is one proposal per item that the product could store (see
// fuzzCheckProposal), and the request's hash is the one earlier releases
// computed from the whole decoded body.
func FuzzSubmissionRequest(f *testing.F) {
	for _, seed := range fuzzSubmissionSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := readSubmission(fuzzBodyEvent(body), true)
		if err != nil {
			fuzzCheckRefusal(t, err, fuzzSubmissionPath)
			return
		}
		proposals, message, errs := req.validate()
		if errs != nil {
			if proposals != nil || len(errs) == 0 || len(errs) > maxItemErrors+1 {
				t.Fatalf("refused with %d proposals and %d errors", len(proposals), len(errs))
			}
			fuzzCheckRefusal(t, (&core.RequestEvent{}).BadRequestError(message, errs), fuzzSubmissionPath)
			return
		}
		var whole wholeSubmission
		if err := json.Unmarshal(body, &whole); err != nil {
			t.Fatalf("read as a stream, but not as a whole: %v", err)
		}
		if len(proposals) != len(whole.Items) || len(proposals) == 0 || len(proposals) > maxItems {
			t.Fatalf("%d proposals for %d items", len(proposals), len(whole.Items))
		}
		for i, p := range proposals {
			fuzzCheckProposal(t, i, p)
		}
		if want, ok := whole.hash(); ok && req.hash != want {
			t.Fatalf("hash %q, earlier releases computed %q", req.hash, want)
		}
	})
}

// fuzzSubmissionSeeds start the fuzzer on the shapes it should explore:
// every kind of value that is dropped, each member order, an id or none.
var fuzzSubmissionSeeds = []string{
	`{"externalSubmissionId":"x-1","items":[{"sku":"SKU-1","confidence":90,"name":"Runner","gtin":"1"}]}`,
	`{"items":[{"sku":"SKU-1","name":"a\u0000b","slug":"ok","description":"tab\tand\nnewline"}],"externalSubmissionId":"x-2"}`,
	`{"items":[{"sku":"S","attributes":[{"attribute":"Color","detail":"Red","option":{"optionId":3}},{"attribute":"Fit"},` +
		`{"attribute":" ","detail":"x"},{"attribute":"A","detail":"\r"},{"attribute":5,"detail":"x"}]}]}`,
	`{"externalSubmissionId":null,"items":[{"sku":"S","files":["https://a.example/1.pdf","","\u0007"],"name":null}]}`,
	`{"externalSubmissionId":"","items":[{"sku":"S","files":[" "],"attributes":[{"detail":"x"}]}],"other":[1e400]}`,
	`{"externalSubmissionId":"\u00e9\ud83d\ude00","items":[{"sku":"S","name":"\u0085","extra":{"b":1.0,"a":1E2}}]}`,
	`{"items":[{"sku":"S","name":"n","extra":1e400}],"externalSubmissionId":"x-3"}`,
	`{"externalSubmissionId":"m","model":{"name":"w","version":"1"},"items":[{"sku":"S","name":"n","model":{"version":"2","name":"v"},
		"sources":[{"field":"name","url":"https://a.example/","quote":"q"},{"field":"slug","url":"x"},7]}]}`,
	`{"items":[{"sku":"S","name":"n","sources":null,"model":null}],"model":null,"externalSubmissionId":"m2"}`,
	`{"items":[{"sku":"S","name":"n","model":{"name":"","version":"1"}}],"model":{"name":"w"}}`,
}

// wholeSubmission is the body as earlier releases decoded it, at once,
// with the batch's model that this one hashes too.
type wholeSubmission struct {
	ExternalSubmissionID *string          `json:"externalSubmissionId"`
	Items                []jsontext.Value `json:"items"`
	Model                jsontext.Value   `json:"model,omitzero"` // absent or null: none
}

// hash is the idempotency hash as earlier releases computed it: the whole
// request encoded again and canonicalized (RFC 8785), "" without an id.
// Not ok for a request that has no canonical form (a number beyond
// float64's range in an item), which they hashed as it was formatted.
func (w wholeSubmission) hash() (hash string, ok bool) {
	if w.ExternalSubmissionID == nil || *w.ExternalSubmissionID == "" {
		return "", true
	}
	if w.Model.Kind() == 'n' {
		w.Model = nil
	}
	encoded, _ := json.Marshal(w)
	canonical := jsontext.Value(encoded)
	if canonical.Canonicalize() != nil {
		return "", false
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:]), true
}

// fuzzCheckProposal checks that the product could store every value of p:
// nothing empty, too long or with a control character, lists that fit.
func fuzzCheckProposal(t *testing.T, i int, p enrichment.Proposal) {
	t.Helper()
	if slices.Contains(p.Ignored, "sku") || slices.Contains(p.Ignored, "confidence") {
		t.Fatalf("item %d: ignoredFields %v lists sku or confidence", i, p.Ignored)
	}
	if p.Confidence != nil && (*p.Confidence < 0 || *p.Confidence > 100) {
		t.Fatalf("item %d: confidence %d", i, *p.Confidence)
	}
	if p.Model != nil && (!enrichment.ValidModelText(p.Model.Name) || !enrichment.ValidModelText(p.Model.Version)) {
		t.Fatalf("item %d: model %+v", i, *p.Model)
	}
	if len(p.Sources) > enrichment.MaxSources || slices.Contains(p.Ignored, "model") || slices.Contains(p.Ignored, "sources") {
		t.Fatalf("item %d: %d sources, ignored %v", i, len(p.Sources), p.Ignored)
	}
	for _, src := range p.Sources {
		if fault := enrichment.SourceFault(src, p.Fields); fault != "" {
			t.Fatalf("item %d: source %+v kept: %s", i, src, fault)
		}
	}
	f := p.Fields
	for name, text := range map[string]*string{"name": f.Name, "slug": f.Slug, "description": f.Description} {
		if text == nil {
			continue
		}
		limit := enrichment.MaxProductTextLength
		if name == "description" {
			limit = enrichment.MaxDescriptionLength
		}
		if strings.TrimSpace(*text) == "" || utf8.RuneCountInString(*text) > limit || fuzzHasControl(*text) {
			t.Fatalf("item %d: %s %q proposed", i, name, shortText(*text))
		}
		if slices.Contains(p.Ignored, name) {
			t.Fatalf("item %d: %s both proposed and ignored", i, name)
		}
	}
	if f.Files != nil {
		if len(*f.Files) == 0 || fuzzJSONSize(t, *f.Files) > enrichment.MaxJSONFieldSize {
			t.Fatalf("item %d: %d files proposed", i, len(*f.Files))
		}
		for _, file := range *f.Files {
			if strings.TrimSpace(file) == "" || fuzzHasControl(file) {
				t.Fatalf("item %d: file %q proposed", i, shortText(file))
			}
		}
	}
	if f.Attributes != nil {
		if len(*f.Attributes) == 0 || fuzzJSONSize(t, *f.Attributes) > enrichment.MaxJSONFieldSize {
			t.Fatalf("item %d: %d attributes proposed", i, len(*f.Attributes))
		}
		for _, a := range *f.Attributes {
			if strings.TrimSpace(a.Attribute) == "" || strings.TrimSpace(a.Detail) == "" ||
				fuzzHasControl(a.Attribute) || fuzzHasControl(a.Detail) || a.OptionID < 0 || a.OptionID > 1<<53-1 {
				t.Fatalf("item %d: attribute %+v", i, a)
			}
		}
	}
}

// fuzzHasControl is the drop rule written again: a control character other
// than tab and newline.
func fuzzHasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\t' && r != '\n' })
}

func fuzzJSONSize(t *testing.T, v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

func shortText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// FuzzSKULookup feeds arbitrary bodies through the SKU lookup's steps
// (readJSON, then validate): a 400 naming skus or one of its entries, or 1
// to 50 SKUs.
func FuzzSKULookup(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		var req skuLookup
		e := fuzzBodyEvent(body)
		err := readJSON(e, &req)
		if err == nil {
			err = req.validate(e)
		}
		if err != nil {
			fuzzCheckRefusal(t, err, fuzzSKUPath)
			return
		}
		if len(req.SKUs) == 0 || len(req.SKUs) > maxSKUs {
			t.Fatalf("accepted %d SKUs", len(req.SKUs))
		}
	})
}
