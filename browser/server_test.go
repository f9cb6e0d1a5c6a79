// Package browser tests the reviewers' page (pb_public) in headless
// Chromium, driven by chromedp, against the service on a loopback HTTP
// server with the test fixture's two organizations.
package browser

import (
	"bytes"
	"encoding/json/v2"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/jobs"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// reviewerPassword is every test reviewer's password.
const reviewerPassword = "reviewer-password"

// service is the enrichment service on a fresh copy of the fixture, serving
// the real pages of ../pb_public on a loopback port.
type service struct {
	t        testing.TB
	f        *fixture.Fixture
	app      *tests.TestApp
	url      string        // http://127.0.0.1:PORT
	statuses *statusCounts // of every answer the server gave
}

// statusCounts counts answers by status, and requests by method and path:
// those received (counted as they arrive, so that a test which sees a
// request's effect in the database also sees it counted) and those under
// way.
type statusCounts struct {
	mu    sync.Mutex
	n     map[int]int
	paths map[string]int // "POST /api/…"
	open  map[string]int // the same, still being answered (a live updates' stream)
}

// underWay counts the requests being answered whose "METHOD path" starts with prefix.
func (c *statusCounts) underWay(prefix string) int {
	return c.sum(c.open, prefix)
}

// requests counts the requests whose "METHOD path" starts with prefix.
func (c *statusCounts) requests(prefix string) int {
	return c.sum(c.paths, prefix)
}

// sum adds up the counts of m whose "METHOD path" starts with prefix.
func (c *statusCounts) sum(m map[string]int, prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for p, k := range m {
		if strings.HasPrefix(p, prefix) {
			n += k
		}
	}
	return n
}

func (c *statusCounts) get(status int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[status]
}

// counting serves h, counting its answers by status.
func (c *statusCounts) counting(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		key := r.Method + " " + r.URL.Path
		c.mu.Lock()
		c.open[key]++
		c.paths[key]++
		c.mu.Unlock()
		h.ServeHTTP(rec, r)
		c.mu.Lock()
		c.open[key]--
		c.n[rec.status]++
		c.mu.Unlock()
	})
}

// statusRecorder notes the status its response was answered with.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// newService starts the service for one test; it stops when the test ends.
// Each of also binds something more on the app before it serves (the
// demo's images, say).
func newService(t testing.TB, also ...func(core.App)) *service {
	t.Helper()
	f := fixture.Get(t)
	app := f.NewAppWithPages(t, os.DirFS("../pb_public")) // the real pages, from the source tree
	t.Cleanup(app.Cleanup)
	// note: the expiry job runs every ten minutes on the wall clock; a test
	// that moves the app's clock past a proposal's time to live would see
	// the proposal expired if it ran across one
	app.Cron().Remove(jobs.ExpireProposalsJob)
	for _, bind := range also {
		bind(app)
	}
	statuses := &statusCounts{n: map[int]int{}, paths: map[string]int{}, open: map[string]int{}}
	srv := httptest.NewServer(statuses.counting(fixture.Serve(t, app)))
	t.Cleanup(srv.Close)
	s := &service{t: t, f: f, app: app, url: srv.URL, statuses: statuses}
	// note: the fixture's image hosts do not exist; the page shows the
	// product's image from a server of the test's own
	runner := s.product(f.A, "SKU-1")
	runner.Set("images", []string{imageServer(t) + "/runner.png"})
	if err := app.Save(runner); err != nil {
		t.Fatal(err)
	}
	return s
}

// imageServer serves a 64×64 PNG at any path on a loopback port.
func imageServer(t testing.TB) string {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for x := range 64 {
		for y := range 64 {
			img.Set(x, y, color.RGBA{R: uint8(150 + x), G: 40, B: uint8(60 + y), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(buf.Bytes())
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// addReviewer creates a reviewer of org with reviewerPassword.
func (s *service) addReviewer(org enrichment.Org, email string) {
	s.t.Helper()
	c, err := s.app.FindCollectionByNameOrId("reviewers")
	if err != nil {
		s.t.Fatal(err)
	}
	r := core.NewRecord(c)
	r.SetEmail(email)
	r.SetPassword(reviewerPassword)
	r.Set("organization", string(org))
	if err := s.app.Save(r); err != nil {
		s.t.Fatalf("reviewer %s: %v", email, err)
	}
}

// proposal is one submitted item: a SKU, a confidence (-1: none) and fields.
type proposal struct {
	sku        string
	confidence int
	fields     enrichment.Fields
}

// submit stores proposals of tenant's API client of kind (see
// fixture.Tenant.Keys) and returns their revision ids as record ids.
func (s *service) submit(tenant fixture.Tenant, kind string, items ...proposal) []string {
	s.t.Helper()
	var ps []enrichment.Proposal
	for _, it := range items {
		p := enrichment.Proposal{SKU: it.sku, Fields: it.fields}
		if it.confidence >= 0 {
			c := it.confidence
			p.Confidence = &c
		}
		ps = append(ps, p)
	}
	results, err := store.New(s.app).Proposals().Submit(tenant.Org, tenant.Clients[kind], ps, store.SubmitOptions{})
	if err != nil {
		s.t.Fatalf("submit: %v", err)
	}
	ids := make([]string, len(results))
	for i, r := range results {
		if r.RevisionID == nil {
			s.t.Fatalf("proposal for %s not stored: %s", r.SKU, r.Status)
		}
		ids[i] = store.FormatID(*r.RevisionID)
	}
	return ids
}

// decide records a decision as Go code does (reviewer "system"); a
// rejection gives the reason "other".
func (s *service) decide(id, status string, approved ...string) {
	s.t.Helper()
	rev := s.record("revisions", id)
	rev.Set("status", status)
	if status == "rejected" {
		rev.Set("reason", "other")
	}
	if len(approved) > 0 {
		rev.Set("approvedFields", approved)
	}
	if err := s.app.Save(rev); err != nil {
		s.t.Fatalf("decide revision %s: %v", id, err)
	}
}

// record reads a record straight from the database.
func (s *service) record(collection, id string) *core.Record {
	s.t.Helper()
	r, err := s.app.FindRecordById(collection, id)
	if err != nil {
		s.t.Fatalf("%s %s: %v", collection, id, err)
	}
	return r
}

// product reads the product with SKU sku of tenant.
func (s *service) product(tenant fixture.Tenant, sku string) *core.Record {
	s.t.Helper()
	return s.record("products", store.FormatID(tenant.Products[sku]))
}

// status is a revision's status and approved fields.
func (s *service) status(id string) (string, []string) {
	s.t.Helper()
	r := s.record("revisions", id)
	return r.GetString("status"), r.GetStringSlice("approvedFields")
}

// fieldsExcept is a record's field values without the named ones, to
// check that nothing else changed.
func fieldsExcept(r *core.Record, names ...string) map[string]any {
	out := map[string]any{}
	for k, v := range r.FieldsData() {
		if !slices.Contains(names, k) {
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}

// metrics calls GET /api/enrichment/acceptance-rate with key.
func (s *service) metrics(key string) enrichment.AcceptanceMetrics {
	s.t.Helper()
	return s.metricsIn(key, "")
}

// metricsIn calls GET /api/enrichment/acceptance-rate with key and a query ("?since=…").
func (s *service) metricsIn(key, query string) enrichment.AcceptanceMetrics {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+"/api/enrichment/acceptance-rate"+query, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set(routes.KeyHeader, key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		s.t.Fatalf("acceptance-rate: %d %s %v", res.StatusCode, body, err)
	}
	var m enrichment.AcceptanceMetrics
	if err := json.Unmarshal(body, &m); err != nil {
		s.t.Fatalf("acceptance-rate body %s: %v", body, err)
	}
	return m
}

func ptr[T any](v T) *T { return &v }

// waitStatus waits until revision id has status on the server (the page
// sends decisions after its delay), and returns its approved fields.
func (s *service) waitStatus(id, status string) []string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, fields := s.status(id)
		if got == status {
			return fields
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("revision %s is %s, want %s", id, got, status)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// addOption adds an attribute option to org's template.
func (s *service) addOption(org enrichment.Org, template, attribute, dataType, unit string) string {
	s.t.Helper()
	c, err := s.app.FindCollectionByNameOrId("attribute_options")
	if err != nil {
		s.t.Fatal(err)
	}
	r := core.NewRecord(c)
	for k, v := range map[string]any{"organization": string(org), "template": template, "attribute": attribute,
		"dataType": dataType, "unit": unit, "priority": 9} {
		r.Set(k, v)
	}
	if err := s.app.Save(r); err != nil {
		s.t.Fatalf("option %s: %v", attribute, err)
	}
	return r.Id
}
