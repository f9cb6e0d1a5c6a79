package routes

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// fuzzSubmissionPath is every key a refused submission may name in data.
var fuzzSubmissionPath = regexp.MustCompile(`^(externalSubmissionId|items(\.\d+(\.(sku|confidence|name|slug|description|` +
	`files(\.\d+)?|attributes(\.\d+(\.(attribute|option\.optionId))?)?))?)?)$`)

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
// paths that valid accepts.
func fuzzCheckRefusal(t *testing.T, err error, valid *regexp.Regexp) {
	t.Helper()
	var apiErr *router.ApiError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || strings.TrimSpace(apiErr.Message) == "" {
		t.Fatalf("refusal %#v: want a 400 with a message", err)
	}
	for key := range apiErr.Data {
		if !valid.MatchString(key) {
			t.Fatalf("refusal %q names %q, not a JSON path of the request", apiErr.Message, key)
		}
	}
}

// FuzzSubmissionRequest feeds arbitrary bodies through the submission
// handler's steps (readJSON, then validate) without storing anything. Either
// the batch is refused with a message and data keyed by JSON paths, or there
// is one proposal per item with no empty enrichable field, a confidence in
// 0..100, and ignoredFields never listing sku or confidence.
func FuzzSubmissionRequest(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		var req submissionRequest
		if err := readJSON(fuzzBodyEvent(body), &req); err != nil {
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
		if len(proposals) != len(req.Items) || len(proposals) == 0 || len(proposals) > maxItems {
			t.Fatalf("%d proposals for %d items", len(proposals), len(req.Items))
		}
		for i, p := range proposals {
			fuzzCheckProposal(t, i, p)
		}
		if req.hash() == "" {
			t.Fatal("no request hash")
		}
	})
}

func fuzzCheckProposal(t *testing.T, i int, p enrichment.Proposal) {
	t.Helper()
	if slices.Contains(p.Ignored, "sku") || slices.Contains(p.Ignored, "confidence") {
		t.Fatalf("item %d: ignoredFields %v lists sku or confidence", i, p.Ignored)
	}
	if p.Confidence != nil && (*p.Confidence < 0 || *p.Confidence > 100) {
		t.Fatalf("item %d: confidence %d", i, *p.Confidence)
	}
	f := p.Fields
	for name, text := range map[string]*string{"name": f.Name, "slug": f.Slug, "description": f.Description} {
		if text != nil && strings.TrimSpace(*text) == "" {
			t.Fatalf("item %d: empty %s proposed", i, name)
		}
		if text != nil && slices.Contains(p.Ignored, name) {
			t.Fatalf("item %d: %s both proposed and ignored", i, name)
		}
	}
	if f.Files != nil && len(*f.Files) == 0 {
		t.Fatalf("item %d: empty files proposed", i)
	}
	if f.Attributes != nil {
		if len(*f.Attributes) == 0 {
			t.Fatalf("item %d: empty attributes proposed", i)
		}
		for _, a := range *f.Attributes {
			if strings.TrimSpace(a.Attribute) == "" || a.OptionID < 0 || a.OptionID > 1<<53-1 {
				t.Fatalf("item %d: attribute %+v", i, a)
			}
		}
	}
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
