package agents_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/internal/catalogfixture"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/store"
)

// BenchmarkProposeMCPvsREST sends the same 1000-item batches through the
// submissions route and through the MCP tool propose, in turns (which goes
// first alternates), on one server over one catalog of 5,000 generated
// products, each from a client of its own; both supersede their own
// proposals alike from the sixth batch on. It reports the p50 of each and
// their ratio: the load harness measures the two in separate runs, whose
// noise is as large as the difference; here they share the machine's
// moment and the database's state.
//
//	go test ./agents -run '^$' -bench ProposeMCPvsREST -benchtime 40x
func BenchmarkProposeMCPvsREST(b *testing.B) {
	c := catalogfixture.New(b, "bench", 5000)
	app, org, skus := c.App, c.Org, c.SKUs
	restKey, mcpKey := newClient(b, app, org, store.NewClient{}), newClient(b, app, org, store.NewClient{})
	srv := httptest.NewServer(fixture.Serve(b, app))
	defer srv.Close()
	session := rawSession(b, srv.URL+routes.Prefix+routes.MCPPath, mcpKey)

	send := func(url string, header http.Header, body []byte) time.Duration {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header = header
		start := time.Now()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		answer, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		took := time.Since(start)
		if res.StatusCode != 200 || bytes.Count(answer, []byte(`"status":"CREATED"`)) != 1000 {
			b.Fatalf("%s: %d %.300s", url, res.StatusCode, answer)
		}
		return took
	}
	restHeader := http.Header{routes.KeyHeader: {restKey}, "Content-Type": {"application/json"}}
	mcpHeader := http.Header{"Authorization": {"Bearer " + mcpKey}, "Content-Type": {"application/json"},
		"Accept": {"application/json, text/event-stream"}, "Mcp-Session-Id": {session}, "Mcp-Protocol-Version": {"2025-11-25"}}
	var restTimes, mcpTimes []time.Duration
	i := 0
	for b.Loop() {
		batch := proposals(skus, i)
		rest := func() {
			restTimes = append(restTimes, send(srv.URL+routes.Prefix+"/products/submissions", restHeader, batch))
		}
		viaMCP := func() {
			call := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"propose","arguments":%s}}`, i+10, batch)
			mcpTimes = append(mcpTimes, send(srv.URL+routes.Prefix+routes.MCPPath, mcpHeader, call))
		}
		if i%2 == 0 {
			rest()
			viaMCP()
		} else {
			viaMCP()
			rest()
		}
		i++
	}
	p50 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	r, m := p50(restTimes), p50(mcpTimes)
	b.ReportMetric(r, "rest-p50-ms")
	b.ReportMetric(m, "mcp-p50-ms")
	b.ReportMetric(m/r, "mcp/rest")
}

// proposals is batch i: 1000 products in turn from skus, each with a name,
// a description of about 400 characters and two attributes.
func proposals(skus []string, i int) []byte {
	var items strings.Builder
	for j := range 1000 {
		if j > 0 {
			items.WriteByte(',')
		}
		sku := skus[(i*1000+j)%len(skus)]
		fmt.Fprintf(&items, `{"sku":%q,"confidence":80,"name":"Trail runner %d-%d","description":"%s","attributes":[{"attribute":"Color","detail":"Red %d"},{"attribute":"Material","detail":"Mesh"}]}`,
			sku, i, j, strings.Repeat("Built for everyday use, it keeps its shape after many washes. ", 6), i)
	}
	return fmt.Appendf(nil, `{"externalSubmissionId":"batch-%d-%d","items":[%s]}`, i, time.Now().UnixNano(), items.String())
}
