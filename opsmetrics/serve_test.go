package opsmetrics_test

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
)

// Who may scrape the main listener, with and without a metrics token.
func TestMetricsAccess(t *testing.T) {
	const token = "metrics-secret-token"
	for _, c := range []struct {
		name   string
		config opsmetrics.Config
		auth   func(w *world) string // the Authorization header
		want   int
	}{
		{"no token set, anonymous", opsmetrics.Config{}, func(*world) string { return "" }, 404},
		{"no token set, a reviewer", opsmetrics.Config{}, func(w *world) string { return fixture.ReviewerToken(w.t, w.app, string(w.f.A.Org)) }, 404},
		{"no token set, a bearer", opsmetrics.Config{}, func(*world) string { return "Bearer " + token }, 404},
		{"no token set, a superuser", opsmetrics.Config{}, func(w *world) string { return fixture.SuperuserToken(w.t, w.app) }, 200},
		{"token set, anonymous", opsmetrics.Config{Token: token}, func(*world) string { return "" }, 401},
		{"token set, a reviewer", opsmetrics.Config{Token: token}, func(w *world) string { return fixture.ReviewerToken(w.t, w.app, string(w.f.A.Org)) }, 401},
		{"token set, a wrong bearer", opsmetrics.Config{Token: token}, func(*world) string { return "Bearer " + token + "x" }, 401},
		{"token set, an API key", opsmetrics.Config{Token: token}, func(w *world) string { return w.f.A.Keys["both"] }, 401},
		{"token set, the bearer", opsmetrics.Config{Token: token}, func(*world) string { return "Bearer " + token }, 200},
		{"token set, the bearer in lower case", opsmetrics.Config{Token: token}, func(*world) string { return "bearer " + token }, 200},
		{"token set, the token without its scheme", opsmetrics.Config{Token: token}, func(*world) string { return token }, 401},
		{"token set, a superuser", opsmetrics.Config{Token: token}, func(w *world) string { return fixture.SuperuserToken(w.t, w.app) }, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, c.config)
			rec := fixture.Send(w.h, http.MethodGet, opsmetrics.Path, "Authorization", c.auth(w), "")
			if rec.Code != c.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, c.want, rec.Body)
			}
			body := rec.Body.String()
			if scraped := strings.Contains(body, "enrichment_pending_revisions"); scraped != (c.want == 200) {
				t.Errorf("scraped %v with status %d: %.300s", scraped, rec.Code, body)
			}
		})
	}
}

// The second listener answers without authentication, and only /metrics.
func TestMetricsSecondListener(t *testing.T) {
	w := newWorld(t, opsmetrics.Config{Addr: "127.0.0.1:0"})
	addr := opsmetrics.Of(w.app).ListenAddr()
	if addr == "" {
		t.Fatal("the second listener does not listen")
	}
	res, err := http.Get("http://" + addr + opsmetrics.Path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "enrichment_decisions_total") ||
		!strings.Contains(string(body), "go_goroutines") || !strings.Contains(string(body), "process_cpu_seconds_total") {
		t.Fatalf("status %d: %.500s", res.StatusCode, body)
	}
	other, err := http.Get("http://" + addr + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	other.Body.Close()
	if other.StatusCode != 404 {
		t.Errorf("GET /api/health on the metrics listener: %d, want 404", other.StatusCode)
	}
}

// promtool accepts a real scrape of a service that has done some work.
func TestScrapePassesPromtool(t *testing.T) {
	tool := promtool(t)
	w := newWorld(t, opsmetrics.Config{Token: "t"})
	fixture.Send(w.h, http.MethodPost, "/api/enrichment/products/submissions", "X-Api-Client-Key", w.f.A.Keys["both"],
		`{"items":[{"sku":"SKU-M-RED","confidence":90,"name":"Checked name"}]}`)
	rec := fixture.Send(w.h, http.MethodGet, opsmetrics.Path, "Authorization", "Bearer t", "")
	if rec.Code != 200 {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	cmd := exec.Command(tool, "check", "metrics")
	cmd.Stdin = strings.NewReader(rec.Body.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// The shipped alert rules are valid.
func TestAlertRules(t *testing.T) {
	tool := promtool(t)
	if out, err := exec.Command(tool, "check", "rules", "../docs/prometheus/alerts.yml").CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
}

// seriesName is a series name as PromQL and the dashboard write it.
var seriesName = regexp.MustCompile(`enrichment_[a-z_]+`)

// The alert rules and the dashboard name only series a scrape has (with
// replication on, so its series are there too).
func TestDocsNameRealSeries(t *testing.T) {
	w := newWorld(t, opsmetrics.Config{Token: "t"})
	opsmetrics.Of(w.app).SetReplication(func() opsmetrics.Replication { return opsmetrics.Replication{LagSeconds: 1} })
	// one event of each labelled family, so that it appears
	m := opsmetrics.Of(w.app)
	m.Proposals.WithLabelValues("CREATED")
	m.Deliveries.WithLabelValues(opsmetrics.DeliveryDelivered)
	fixture.Send(w.h, http.MethodGet, "/api/enrichment/products", "", "", "")
	rec := fixture.Send(w.h, http.MethodGet, opsmetrics.Path, "Authorization", "Bearer t", "")
	scraped := map[string]bool{}
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, kind, _ := strings.Cut(name, " ")
			scraped[name] = true
			if kind == "histogram" {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					scraped[name+suffix] = true
				}
			}
		}
	}
	for _, doc := range []string{"../docs/prometheus/alerts.yml", "../docs/grafana/enrichment.json", "../docs/operations.md"} {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range seriesName.FindAllString(string(text), -1) {
			if !scraped[name] && !strings.HasPrefix(name, "enrichment_decision_counts") {
				t.Errorf("%s names %s, which no scrape has", doc, name)
			}
		}
	}
}
