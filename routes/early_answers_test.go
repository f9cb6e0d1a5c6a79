package routes_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
)

// TestEarlyAnswersDoNotWaitForTheBody sends requests that declare a
// 4096-byte body, send 11 bytes of it and stop: each one the API refuses
// without reading its body is answered at once, with the connection
// closed, instead of after the server waited for the rest. A request whose
// body is read to its end keeps its connection.
func TestEarlyAnswersDoNotWaitForTheBody(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	srv := httptest.NewServer(fixture.Serve(t, app))
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")
	reviewer := "Authorization: " + fixture.ReviewerToken(t, app, string(f.A.Org)) + "\r\n"
	cases := []struct {
		what, method, path, headers string
		length                      int
		want                        int
	}{
		{"no key", "POST", "/api/enrichment/products/submissions", "", 4096, 401},
		{"no token", "POST", "/api/enrichment/review/rollbacks", "", 4096, 401},
		{"wrong scope", "POST", "/api/enrichment/products/submissions", routes.KeyHeader + ": " + f.A.Keys["read"] + "\r\n", 4096, 403},
		{"no such route", "POST", "/api/enrichment/nothing-here", "", 4096, 404},
		{"no such webhook", "POST", "/api/enrichment/webhooks/99999/test", routes.KeyHeader + ": " + f.A.Keys["submit"] + "\r\n", 4096, 404},
		{"no such webhook to delete", "DELETE", "/api/enrichment/webhooks/99999", routes.KeyHeader + ": " + f.A.Keys["submit"] + "\r\n", 4096, 404},
		{"no such revision to claim", "POST", "/api/enrichment/review/claims/99999999", reviewer, 4096, 404},
		{"no such revision to release", "DELETE", "/api/enrichment/review/claims/99999999", reviewer, 4096, 404},
		{"no such webhook's deliveries", "GET", "/api/enrichment/webhooks/99999/deliveries", routes.KeyHeader + ": " + f.A.Keys["submit"] + "\r\n", 4096, 404},
		{"no such reviewer's history", "GET", "/api/enrichment/review/decided?reviewer=nobody", reviewer, 4096, 404},
		{"too large", "POST", "/api/enrichment/products/submissions", routes.KeyHeader + ": " + f.A.Keys["submit"] + "\r\n", 64 << 20, 413},
		{"not JSON", "POST", "/api/enrichment/products/submissions", routes.KeyHeader + ": " + f.A.Keys["submit"] +
			"\r\nContent-Type: text/plain\r\n", 4096, 415},
	}
	for _, c := range cases {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\n%sContent-Length: %d\r\n\r\n{\"items\":[", c.method, c.path, addr, c.headers, c.length)
		start := clock.Wall()
		conn.SetReadDeadline(start.Add(3 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		switch {
		case err != nil:
			t.Errorf("%s: no answer after %s: %v", c.what, clock.Wall().Sub(start), err)
		case res.StatusCode != c.want || !res.Close:
			t.Errorf("%s: %d, Connection %q; want %d and the connection closed", c.what, res.StatusCode, res.Header.Get("Connection"), c.want)
		}
		conn.Close()
	}

	// a body read to its end keeps the connection
	body := `{"items":[{"sku":"SKU-1","name":"Kept"}]}`
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/enrichment/products/submissions?dryRun=true HTTP/1.1\r\nHost: %s\r\n%s: %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, routes.KeyHeader, f.A.Keys["submit"], len(body), body)
	conn.SetReadDeadline(clock.Wall().Add(5 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || res.StatusCode != 200 || res.Close {
		t.Errorf("a body read to its end: %v, %+v", err, res)
	}
}
