package routes_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
)

// TestProposalFlow follows proposals from submission through a reviewer's
// decisions in the records API to the export, the metrics and the list.
func TestProposalFlow(t *testing.T) {
	f, app, h := served(t)
	key := f.A.Keys["both"]

	sub := request(h, http.MethodPost, submitURL, key, `{"items":[
		{"sku":"SKU-1","confidence":90,"name":"Runner Pro","slug":"runner-pro","description":"Now lighter."},
		{"sku":"SKU-M-RED","confidence":60,"attributes":[{"attribute":"Color","detail":"Crimson"},{"attribute":"Lining","detail":"Mesh"}]},
		{"sku":"SKU-NEW","confidence":20,"name":"Renamed"}]}`)
	if sub.Code != 200 {
		t.Fatalf("submit: %d %s", sub.Code, sub.Body)
	}
	revs := decode[[]result](t, sub.Body.Bytes())
	before := clock.Wall().Add(-time.Millisecond)

	token := fixture.ReviewerToken(t, app, string(f.A.Org))
	decide := func(rev *int64, body string, status int) {
		t.Helper()
		req := fmt.Sprintf("/api/collections/revisions/records/%d", *rev)
		r := requestAuth(h, http.MethodPatch, req, token, body)
		if r.Code != status {
			t.Fatalf("decide %d with %s: %d %s", *rev, body, r.Code, r.Body)
		}
	}
	decide(revs[0].RevisionID, `{"status":"accepted","approvedFields":["name"]}`, 200)
	decide(revs[1].RevisionID, `{"status":"accepted"}`, 200)
	decide(revs[2].RevisionID, `{"status":"rejected"}`, 200)
	decide(revs[2].RevisionID, `{"status":"accepted"}`, 400) // final

	exp := request(h, http.MethodGet, exportURL+"?modifiedSince="+url.QueryEscape(before.UTC().Format(time.RFC3339Nano)), key, "")
	p := decode[page](t, exp.Body.Bytes())
	if got := strings.Join(p.skus(), ","); got != "SKU-1,SKU-M-RED" {
		t.Fatalf("modified since the decisions: %s", got)
	}
	if p.Items[0]["name"] != "Runner Pro" || p.Items[0]["slug"] != "runner" || p.Items[0]["description"] != "A light running shoe." {
		t.Errorf("partial approval applied more than the name: %v", p.Items[0])
	}
	attrs := fmt.Sprint(p.Items[1]["attributes"])
	color := lookupID(t, app, "attribute_options", "attribute", "Color", f.A.Org)
	if !strings.Contains(attrs, "attribute:Color detail:Crimson option:map[dataType:STRING optionId:"+color) ||
		!strings.Contains(attrs, "attribute:Size detail:42") || !strings.Contains(attrs, "attribute:Lining detail:Mesh option:<nil>") {
		t.Errorf("merged attributes: %s", attrs)
	}

	m := request(h, http.MethodGet, "/api/enrichment/acceptance-rate", key, "")
	sameJSON(t, "metrics", decode[any](t, m.Body.Bytes()), `{"totalSubmitted":3,"reviewed":3,"accepted":2,"rejected":1,"pending":0,
		"acceptanceRate":0.6667,"byConfidenceBand":[
		{"band":"0-49","reviewed":1,"accepted":0,"acceptanceRate":0},
		{"band":"50-79","reviewed":1,"accepted":1,"acceptanceRate":1},
		{"band":"80-100","reviewed":1,"accepted":1,"acceptanceRate":1}],
		"superseded":0,"expired":0,"byReason":[{"reason":"inaccurate","count":0},{"reason":"low_quality","count":0},
		{"reason":"off_brand","count":0},{"reason":"incomplete","count":0},{"reason":"duplicate","count":0},{"reason":"other","count":0}],
		"corrected":0,"reverted":0,"byField":[{"field":"name","proposed":2,"applied":1,"corrected":0},{"field":"slug","proposed":1,"applied":0,"corrected":0},
		{"field":"description","proposed":1,"applied":0,"corrected":0},{"field":"attributes","proposed":1,"applied":1,"corrected":0},
		{"field":"files","proposed":0,"applied":0,"corrected":0}],"autoAccepted":0,"slotsFilled":0,"byModel":[]}`)

	list := request(h, http.MethodGet, "/api/enrichment/revisions?sku=SKU-1", key, "")
	if !strings.Contains(list.Body.String(), `"fields":{"name":"applied","slug":"not_applied","description":"not_applied"}`) {
		t.Errorf("revisions list: %s", list.Body)
	}
}
