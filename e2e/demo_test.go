package e2e

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// demoRun is one `demo` process with what its banner said.
type demoRun struct {
	*process
	key, url      string
	firstAnswer   time.Duration // from process start to the first 200
	totalElements int
}

var curlLine = regexp.MustCompile(`curl -s -H '` + keyHeader + `: ([^']+)' '([^']+)'`)

// startDemo runs `demo` on dir, reads the key and URL from its banner and
// waits for the banner's request to answer 200.
func startDemo(t *testing.T, dir string) *demoRun {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p := startProcess(t, "demo", "--dir", dir)
		d := &demoRun{process: p}
		deadline := time.Now().Add(bannerTimeout)
		for time.Now().Before(deadline) && !p.exited() && d.key == "" {
			if m := curlLine.FindStringSubmatch(p.stdout.String()); m != nil {
				d.key, d.url = m[1], m[2]
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		// note: the banner is printed just before the server listens
		deadline = time.Now().Add(startTimeout)
		for d.key != "" && time.Now().Before(deadline) && !p.exited() {
			status, body := get(d.url, d.key)
			if status == http.StatusOK {
				d.firstAnswer = time.Since(p.started)
				d.checkPage(t, body)
				return d
			}
			if status != 0 {
				t.Fatalf("GET %s with the demo key: status %d, body %s", d.url, status, body)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if p.lostPort() && attempt < 3 {
			continue
		}
		p.stop()
		if d.key == "" {
			t.Fatalf("demo printed no curl line (waited up to %s): %s\n%s", bannerTimeout, p.status(), p.output())
		}
		t.Fatalf("demo's curl request got no 200 (waited up to %s): %s\n%s", startTimeout, p.status(), p.output())
	}
}

// checkPage checks the answer to the banner's request (pageSize=2).
func (d *demoRun) checkPage(t *testing.T, body []byte) {
	t.Helper()
	var page struct {
		Items         []json.RawMessage `json:"items"`
		TotalElements int               `json:"totalElements"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatalf("demo answer is not a page: %v\n%s", err, body)
	}
	if len(page.Items) != 2 || page.TotalElements <= 200 {
		t.Fatalf("demo answer has %d items of %d products, want 2 of more than 200\n%s",
			len(page.Items), page.TotalElements, body)
	}
	d.totalElements = page.TotalElements
}

func TestDemo(t *testing.T) {
	dir := t.TempDir()

	first := startDemo(t, dir)
	t.Logf("demo time to first answer: %s (first run, catalog imported; %d products)",
		first.firstAnswer.Round(time.Millisecond), first.totalElements)
	if !strings.HasPrefix(first.key, "cek_") || len(first.key) != 47 {
		t.Errorf("demo key %q is not a cek_ key of 47 characters", first.key)
	}
	if !strings.HasPrefix(first.url, first.base+"/api/enrichment/products") {
		t.Errorf("demo URL %q is not on %s", first.url, first.base)
	}
	first.stop()
	first.checkNoSQLEcho()

	second := startDemo(t, dir)
	t.Logf("demo time to first answer: %s (second run, catalog kept)", second.firstAnswer.Round(time.Millisecond))
	if second.totalElements != first.totalElements {
		t.Errorf("second run has %d products, first had %d: the catalog was not kept as is",
			second.totalElements, first.totalElements)
	}
	if second.key == first.key {
		t.Error("the second run printed the first run's key again")
	}
	if status, body := get(second.url, first.key); status != http.StatusUnauthorized {
		t.Errorf("the first run's key on the second run: status %d, want 401; body %s", status, body)
	}
	second.stop()
	second.checkNoSQLEcho()

	assertKeysNotStored(t, dir, first.key, second.key)
}
