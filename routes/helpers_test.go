package routes_test

import (
	"database/sql"
	"encoding/json/v2"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/pocketbase/pocketbase/tests"
)

// call is one request of a scenario table. Every row says what its body
// holds (content, absent or check); run refuses a row that checks only the
// status.
type call struct {
	name    string
	method  string
	url     string
	key     string // sent as X-Api-Client-Key when not empty
	body    string
	status  int
	content []string // substrings of the compact JSON body
	absent  []string
	check   func(t testing.TB, app *tests.TestApp, body []byte)
}

// run plays each call against a fresh copy of the fixture.
func run(t *testing.T, f *fixture.Fixture, calls []call) {
	t.Helper()
	for _, c := range calls {
		s := tests.ApiScenario{
			Name:               c.name,
			Method:             c.method,
			URL:                c.url,
			ExpectedStatus:     c.status,
			ExpectedContent:    c.content,
			NotExpectedContent: c.absent,
			TestAppFactory:     func(tb testing.TB) *tests.TestApp { return f.NewApp(tb) },
		}
		if s.Method == "" {
			s.Method = http.MethodGet
		}
		if c.body != "" {
			s.Body = strings.NewReader(c.body)
		}
		if c.key != "" {
			s.Headers = map[string]string{routes.KeyHeader: c.key}
		}
		switch {
		case len(c.content) > 0 || len(c.absent) > 0:
		case c.check != nil:
			// note: PocketBase's scenario wants an empty body when it is given
			// no content to look for; a JSON body never holds a NUL byte, so
			// this only turns that off, and c.check asserts the body
			s.NotExpectedContent = []string{"\x00"}
		default:
			t.Fatalf("%s: the row checks only the status; say what the body holds (content, absent or check)", c.name)
		}
		check := c.check
		s.AfterTestFunc = func(t testing.TB, app *tests.TestApp, res *http.Response) {
			if check == nil {
				return
			}
			body, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			check(t, app, body)
		}
		s.Test(t)
	}
}

// decode reads a JSON body into T or fails the test.
func decode[T any](t testing.TB, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return v
}

// page is the product envelope as a client decodes it.
type page struct {
	Items         []map[string]any `json:"items"`
	Page          int              `json:"page"`
	PageSize      int              `json:"pageSize"`
	TotalElements int              `json:"totalElements"`
	TotalPages    int              `json:"totalPages"`
}

func (p page) skus() []string {
	out := make([]string, len(p.Items))
	for i, it := range p.Items {
		out[i], _ = it["sku"].(string)
	}
	return out
}

// sameJSON compares a value with the JSON text it should encode to.
func sameJSON(t testing.TB, what string, got any, want string) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(g, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatalf("bad expectation for %s: %v", what, err)
	}
	ga, _ := json.Marshal(a, json.Deterministic(true))
	gb, _ := json.Marshal(b, json.Deterministic(true))
	if string(ga) != string(gb) {
		t.Errorf("%s:\n got %s\nwant %s", what, ga, gb)
	}
}

// testClock is a clock the test moves by hand; clock.Set gives it to an
// app (grace periods, lastUsedAt, rate limits, claims, decisions).
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

// stopClock gives app a clock that starts at the real time and then moves
// only when the test moves it.
func stopClock(app *tests.TestApp) *testClock {
	c := &testClock{t: clock.Wall()}
	clock.Set(app, c.now)
	return c
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// handler serves app's router once, for several requests on the same data.
func handler(t testing.TB, app *tests.TestApp) http.Handler {
	return fixture.Serve(t, app)
}

// served is a fresh copy of the fixture, cleaned up with t, and a handler
// of its router for several requests on the same data.
func served(t testing.TB) (*fixture.Fixture, *tests.TestApp, http.Handler) {
	t.Helper()
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	return f, app, handler(t, app)
}

// request makes one request to h with an optional key and JSON body.
func request(h http.Handler, method, url, key, body string) *httptest.ResponseRecorder {
	return fixture.Send(h, method, url, routes.KeyHeader, key, body)
}

// requestAuth makes one records API request with a PocketBase auth token.
func requestAuth(h http.Handler, method, url, token, body string) *httptest.ResponseRecorder {
	return fixture.Send(h, method, url, "Authorization", token, body)
}

// anotherProcess opens app's database as the command line would, beside
// the server, and returns a function that runs a statement there.
func anotherProcess(t testing.TB, app *tests.TestApp) func(query string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(app.DataDir(), "data.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return func(query string, args ...any) {
		t.Helper()
		if _, err := db.Exec(query, args...); err != nil {
			t.Fatal(err)
		}
	}
}
