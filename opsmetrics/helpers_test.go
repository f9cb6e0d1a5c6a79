package opsmetrics_test

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"github.com/pocketbase/pocketbase/tests"
	dto "github.com/prometheus/client_model/go"
)

// world is a test app with the service bound and its router built, and the
// metrics configured as c says.
type world struct {
	t   testing.TB
	f   *fixture.Fixture
	app *tests.TestApp
	h   http.Handler
}

func newWorld(t testing.TB, c opsmetrics.Config) *world {
	f := fixture.Get(t)
	app := f.NewApp(t)
	t.Cleanup(app.Cleanup)
	opsmetrics.Register(app, c) // replaces the fixture's config (no token, no listener)
	return &world{t: t, f: f, app: app, h: fixture.Serve(t, app)}
}

// value is the series name{labels} as a scrape gathers it now; a missing
// series fails the test.
func (w *world) value(name string, labels ...string) float64 {
	w.t.Helper()
	v, ok := w.lookup(name, labels...)
	if !ok {
		w.t.Fatalf("no series %s%v", name, labels)
	}
	return v
}

// count is a counter of a labelled family: 0 until its first event.
func (w *world) count(name string, labels ...string) float64 {
	w.t.Helper()
	v, _ := w.lookup(name, labels...)
	return v
}

func (w *world) lookup(name string, labels ...string) (float64, bool) {
	w.t.Helper()
	families, err := opsmetrics.Of(w.app).Registry().Gather()
	if err != nil {
		w.t.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if hasLabels(m, labels) {
				switch {
				case m.Counter != nil:
					return m.GetCounter().GetValue(), true
				case m.Gauge != nil:
					return m.GetGauge().GetValue(), true
				case m.Histogram != nil:
					return float64(m.GetHistogram().GetSampleCount()), true
				}
			}
		}
	}
	return 0, false
}

// hasLabels tells whether m has every name=value pair of labels.
func hasLabels(m *dto.Metric, labels []string) bool {
	for i := 0; i+1 < len(labels); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// promtool finds Prometheus's promtool: skipped without it, failed under
// CI (CI=true), where .ci/run installs Debian's prometheus package.
func promtool(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("promtool"); err == nil {
		return p
	}
	msg := "no promtool found (apt-get install prometheus)"
	if ci := strings.ToLower(os.Getenv("CI")); ci == "true" || ci == "1" {
		t.Fatal(msg + "; CI must check the metrics and the alert rules")
	}
	t.Skip(msg)
	return ""
}
