package routes_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// holdHeader marks a request that the test holds in flight, after the body
// budget was taken for it and before its body is read.
const holdHeader = "X-Test-Hold"

// TestBodyBudget: large bodies in flight are bounded across the server and
// per client. Held 16 MiB submissions fill one client's half, then the
// whole budget; a large body that finds no room waits, then gets 503 with
// Retry-After; other clients' small requests, and requests without a valid
// key, are answered as ever; once the held ones end, there is room again.
func TestBodyBudget(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	entered, release := make(chan struct{}, 8), make(chan struct{})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		se.Router.Bind(&hook.Handler[*core.RequestEvent]{
			Priority: 2, // note: after the API routes' budget (1)
			Func: func(e *core.RequestEvent) error {
				if e.Request.Header.Get(holdHeader) != "" {
					entered <- struct{}{}
					<-release
				}
				return e.Next()
			},
		})
		return se.Next()
	})
	srv := httptest.NewServer(fixture.Serve(t, app))
	t.Cleanup(srv.Close)
	refusals := opsmetrics.Of(app).BodyBudget // the operators' count of the 503s

	full := submission(16<<20 - 200) // just under the route's limit, with the envelope
	var held sync.WaitGroup
	hold := func(key string) {
		held.Go(func() {
			if code, body := post(t, srv.URL, key, full, true); code != 200 {
				t.Errorf("held submission: %d %.300s", code, body)
			}
		})
		<-entered
	}
	refused := func(what, key, body string) {
		t.Helper()
		code, res, header := send(t, srv.URL, http.MethodPost, submitURL, key, body, false)
		if code != 503 || header.Get("Retry-After") == "" || !strings.Contains(res, "retry after") {
			t.Errorf("%s: %d, Retry-After %q: %.300s", what, code, header.Get("Retry-After"), res)
		}
	}
	answered := func(what, method, url, key, body string, want int) {
		t.Helper()
		if code, res, _ := send(t, srv.URL, method, url, key, body, false); code != want {
			t.Errorf("%s: %d, want %d: %.300s", what, code, want, res)
		}
	}
	a, b := f.A.Keys["submit"], f.B.Keys["submit"]
	oneMiB := submission(1 << 20)

	hold(a)
	hold(a)
	refused("A's third large submission, its half taken", a, oneMiB)
	answered("B's large submission, in the other half", http.MethodPost, submitURL, b, oneMiB, 200)

	hold(f.A.Keys["both"])
	hold(f.A.Keys["both"])
	refused("B's large submission, the budget taken", b, oneMiB)
	answered("B's export", http.MethodGet, exportURL, f.B.Keys["read"], "", 200)
	answered("B's SKU lookup", http.MethodPost, lookupURL, f.B.Keys["read"], `{"skus":["SKU-1"]}`, 200)
	answered("B's small submission", http.MethodPost, submitURL, b, `{"items":[{"sku":"SKU-1","name":"Small"}]}`, 200)
	answered("a large body without a key", http.MethodPost, submitURL, "", full, 401)
	answered("a large body with a read-only key", http.MethodPost, submitURL, f.B.Keys["read"], full, 403)

	close(release)
	held.Wait()
	answered("A's large submission once the others ended", http.MethodPost, submitURL, a, oneMiB, 200)
	if n := testutil.ToFloat64(refusals); n != 2 {
		t.Errorf("enrichment_body_budget_refused_total %v, want 2", n)
	}
}

// TestChunkedBodies: a body whose size is not announced (chunked) counts
// as the route's limit in the budget, and one that runs past the limit is
// refused with 413 as it is read.
func TestChunkedBodies(t *testing.T) {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	srv := httptest.NewServer(fixture.Serve(t, app))
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		name string
		body string
		want int
	}{
		{"a chunked submission", submission(1 << 20), 200},
		{"a chunked submission over 16 MiB", submission(17 << 20), 413},
	} {
		// note: a reader of unknown length makes the client send it chunked
		req, err := http.NewRequest(http.MethodPost, srv.URL+submitURL, io.MultiReader(strings.NewReader(c.body)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(routes.KeyHeader, f.A.Keys["submit"])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("%s: %d, want %d: %.200s", c.name, res.StatusCode, c.want, out)
		}
	}
}

// submission is a one-item submission body of about size bytes.
func submission(size int) string {
	return `{"items":[{"sku":"SKU-1","name":"Budget","pad":"` + strings.Repeat("p", size) + `"}]}`
}

func post(t *testing.T, base, key, body string, held bool) (int, string) {
	code, res, _ := send(t, base, http.MethodPost, submitURL, key, body, held)
	return code, res
}

// send makes one request over HTTP, marked to be held when held is true.
func send(t *testing.T, base, method, url, key, body string, held bool) (int, string, http.Header) {
	req, err := http.NewRequest(method, base+url, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0, "", nil
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set(routes.KeyHeader, key)
	}
	if held {
		req.Header.Set(holdHeader, "1")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, "", nil
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(out), res.Header
}
