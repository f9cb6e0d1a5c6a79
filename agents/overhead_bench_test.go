package agents

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// BenchmarkProposeOverhead measures what the MCP endpoint adds to a
// 1000-item propose: the SDK's reading and answering, and the tool's, with
// a route that answers at once with results of the submissions route's
// shape (the real route's time is not in it).
func BenchmarkProposeOverhead(b *testing.B) {
	doc, err := os.ReadFile("../routes/openapi.json")
	if err != nil {
		b.Fatal(err)
	}
	var results bytes.Buffer
	results.WriteByte('[')
	for i := range 1000 {
		if i > 0 {
			results.WriteByte(',')
		}
		fmt.Fprintf(&results, `{"sku":"SKU-%06d","productId":%d,"revisionId":%d,"status":"CREATED","ignoredFields":["gtin"],"issues":[{"field":"attributes.Size","code":"unit_removed","severity":"warning","message":"The unit EU was removed: the option's unit is EU."}]}`, i, i+1, i+7)
	}
	results.WriteByte(']')
	answer := results.Bytes()
	h, err := NewHandler(func(context.Context, enrichment.Client, Call) Answer { return Answer{Status: 200, Body: answer} }, doc)
	if err != nil {
		b.Fatal(err)
	}
	client := enrichment.Client{ID: 1, Scopes: enrichment.Scopes}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeClient(w, r, client) }))
	defer srv.Close()

	var items strings.Builder
	for i := range 1000 {
		if i > 0 {
			items.WriteByte(',')
		}
		fmt.Fprintf(&items, `{"sku":"SKU-%06d","confidence":80,"name":"Trail runner %d","description":"%s","attributes":[{"attribute":"Color","detail":"Red","option":{"optionId":3}},{"attribute":"Size","detail":"42 EU","option":{"optionId":4}}],"files":["https://docs.example/%d.pdf"],"gtin":"0401234567890"}`,
			i, i, strings.Repeat("Built for everyday use, it keeps its shape. ", 8), i)
	}
	post := func(session, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	res := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	session := res.Header.Get("Mcp-Session-Id")
	_ = res.Body.Close()
	_ = post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"propose","arguments":{"items":[` + items.String() + `]}}}`
	b.SetBytes(int64(len(call)))
	b.ReportAllocs()
	for b.Loop() {
		res := post(session, call)
		n, _ := io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		if res.StatusCode != 200 || n < int64(len(answer)) {
			b.Fatalf("%d, %d bytes", res.StatusCode, n)
		}
	}
}
