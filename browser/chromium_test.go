package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// tabTimeout bounds each test's browser work (a benchmark allows more).
var tabTimeout = 60 * time.Second

// viewport is the screen size the page is laid out and photographed for;
// phone is a phone's, held upright.
const (
	viewportW, viewportH = 1440, 900
	phoneW, phoneH       = 390, 844
)

// shared is the one headless Chromium that every test opens its tabs in:
// starting it once saves about a second per test. TestMain stops it.
var shared struct {
	once    sync.Once
	ctx     context.Context // the browser; each test makes a tab of it
	stop    func()
	dataDir string
	err     error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	if shared.dataDir != "" {
		os.RemoveAll(shared.dataDir)
	}
	os.Exit(code)
}

// chromiumPath finds the browser: $CHROMIUM, else chromium on the PATH.
// Without one the test is skipped, or failed under CI (CI=true), where
// .ci/run installs Debian's chromium package.
func chromiumPath(t testing.TB) string {
	t.Helper()
	candidates := []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser"}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	msg := "no Chromium found (set $CHROMIUM, or install it: apt-get install chromium)"
	if ci := strings.ToLower(os.Getenv("CI")); ci == "true" || ci == "1" {
		t.Fatal(msg + "; CI must run the browser tests")
	}
	t.Skip(msg)
	return ""
}

// startBrowser starts the shared browser with the flags that work on these
// machines (no sandbox as root, no GPU, no background network traffic to
// Google's hosts) and a fresh profile.
func startBrowser(path string) {
	dir, err := os.MkdirTemp("", "enrichment-chromium-")
	if err != nil {
		shared.err = err
		return
	}
	shared.dataDir = dir
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("password-store", "basic"),
		chromedp.WindowSize(viewportW, viewportH),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
	}
	allocCtx, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, stopBrowser := chromedp.NewContext(allocCtx)
	// note: no timeout on the first Do, which binds the browser's lifetime
	if err := chromedp.Do(ctx); err != nil {
		stopBrowser()
		stopAlloc()
		shared.err = fmt.Errorf("start %s: %w", path, err)
		return
	}
	shared.ctx = ctx
	shared.stop = func() {
		stopBrowser()
		stopAlloc()
	}
}

// newTab opens a tab of the shared browser at 1440×900 for the test, with a
// deadline of tabTimeout; uncaught exceptions in the page fail the test
// and console messages are logged. The page sends each decision at once
// (see newTabHolding).
func newTab(t testing.TB) context.Context {
	t.Helper()
	return newTabHolding(t, 0)
}

// newTabHolding is newTab with decisions held holdMs before they are sent
// (the page's "enrichment.holdMs"; -1: the page's own delay, 5 s).
func newTabHolding(t testing.TB, holdMs int) context.Context {
	t.Helper()
	path := chromiumPath(t)
	shared.once.Do(func() { startBrowser(path) })
	if shared.err != nil {
		t.Fatalf("headless Chromium: %v", shared.err)
	}
	tab, closeTab := chromedp.NewContext(shared.ctx)
	if err := chromedp.Do(tab); err != nil {
		closeTab()
		t.Fatalf("open a tab: %v", err)
	}
	ctx, cancel := context.WithTimeout(tab, tabTimeout)
	t.Cleanup(func() {
		cancel()
		closeTab()
	})

	console := chromedp.Console(tab)
	var wg sync.WaitGroup
	wg.Go(func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.IsException() {
				t.Errorf("uncaught exception in the page: %s (%s:%d)", m.Text, m.URL, m.Line+1)
			} else {
				t.Logf("console %s: %s", m.Type, m.Text)
			}
		}
	})
	t.Cleanup(func() {
		closeTab()
		wg.Wait()
	})

	do(t, ctx, chromedp.EmulateViewport(viewportW, viewportH))
	hold := "localStorage.removeItem('enrichment.holdMs')"
	if holdMs >= 0 {
		hold = fmt.Sprintf("localStorage.setItem('enrichment.holdMs', '%d')", holdMs)
	}
	hold = "if (location.protocol.startsWith('http')) " + hold // note: about:blank has no storage
	onEveryLoad(t, ctx, hold)
	return ctx
}

// onEveryLoad runs js in the tab before the page's own scripts at each
// load from now on.
func onEveryLoad(t testing.TB, ctx context.Context, js string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: js}); err != nil {
		t.Fatalf("add a script to every load: %v", err)
	}
}
