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
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// enteredHeader marks a request whose arrival past the body budget the test
// waits for.
const enteredHeader = "X-Test-Entered"

// stalledSignIn opens a connection from the loopback address from that
// starts a chunked sign-in body and sends nothing more.
func stalledSignIn(t *testing.T, addr string, from net.IP) net.Conn {
	t.Helper()
	conn, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: from}}).Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /api/collections/reviewers/auth-with-password HTTP/1.1\r\nHost: %s\r\n"+
		"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n%s: 1\r\n\r\n", addr, enteredHeader)
	return conn
}

// TestAnonymousBodies: anonymous requests cannot take the body budget from
// the tenants. Two connections from two addresses that start a chunked sign-in body and send
// nothing hold none of it (they are charged what they read), so a tenant's
// 1 MiB submission is served meanwhile; both are cut off once their body
// has sent nothing for the idle time (shortened here from 10 s); and an
// anonymous body over 1 MiB is refused, announced or chunked.
func TestAnonymousBodies(t *testing.T) {
	const idle = 700 * time.Millisecond
	routes.SetBodyIdle(t, idle)
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	entered := make(chan struct{}, 4)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		se.Router.Bind(&hook.Handler[*core.RequestEvent]{
			Priority: -900, // after the server's body budget, before the handler reads the body
			Func: func(e *core.RequestEvent) error {
				if e.Request.Header.Get(enteredHeader) != "" {
					entered <- struct{}{}
				}
				return e.Next()
			},
		})
		return se.Next()
	})
	srv := httptest.NewServer(fixture.Serve(t, app))
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")

	start := clock.Wall()
	stalled := []net.Conn{stalledSignIn(t, addr, net.IPv4(127, 0, 0, 2)), stalledSignIn(t, addr, net.IPv4(127, 0, 0, 3))}
	for range stalled {
		select {
		case <-entered:
		case <-time.After(5 * time.Second):
			t.Fatal("a stalled sign-in never reached its handler")
		}
	}
	if code, res := post(t, srv.URL, f.A.Keys["submit"], submission(1<<20), false); code != 200 {
		t.Errorf("a tenant's 1 MiB submission beside two stalled anonymous bodies: %d %.300s", code, res)
	}
	for i, conn := range stalled {
		conn.SetReadDeadline(clock.Wall().Add(5 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("stalled body %d: no answer: %v", i, err)
		}
		res.Body.Close()
		if waited := time.Since(start); res.StatusCode < 400 || waited > idle+3*time.Second {
			t.Errorf("stalled body %d: %d after %v, want an error once it sent nothing for %v", i, res.StatusCode, waited, idle)
		}
	}

	signIn := func(what string, body string, chunked bool) {
		t.Helper()
		var r = strings.NewReader(body)
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/collections/_superusers/auth-with-password", r)
		if err != nil {
			t.Fatal(err)
		}
		if chunked {
			req.ContentLength = -1
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if want := 200; len(body) > 1<<20 {
			if res.StatusCode != 413 && res.StatusCode != 400 {
				t.Errorf("%s: %d, want it refused", what, res.StatusCode)
			}
		} else if res.StatusCode != want {
			t.Errorf("%s: %d, want %d", what, res.StatusCode, want)
		}
	}
	credentials := `{"identity":"` + fixture.SuperuserEmail + `","password":"superuser-password","pad":"`
	signIn("a sign-in with 900 KiB of padding", credentials+strings.Repeat("p", 900<<10)+`"}`, false)
	signIn("a sign-in with 2 MiB of padding", credentials+strings.Repeat("p", 2<<20)+`"}`, false)
	signIn("a chunked sign-in with 2 MiB of padding", credentials+strings.Repeat("p", 2<<20)+`"}`, true)
}
