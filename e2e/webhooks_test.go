package e2e

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog/gen"
)

// received is one request a test receiver got.
type received struct {
	at     time.Time
	header http.Header
	body   []byte
}

// receiver is a webhook receiver on 127.0.0.1 whose answers the test sets.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	answer func(n int) int // the status of the n-th request (0-based); 0: hang until the client leaves
	hung   chan struct{}   // closed to release hung requests
	arrive chan struct{}   // a signal per request
}

func newReceiver(t *testing.T, answer func(n int) int) *receiver {
	r := &receiver{answer: answer, hung: make(chan struct{}), arrive: make(chan struct{}, 100)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := len(r.got)
		r.got = append(r.got, received{at: time.Now(), header: req.Header.Clone(), body: body})
		status := r.answer(n)
		r.mu.Unlock()
		r.arrive <- struct{}{}
		if status == 0 {
			select {
			case <-req.Context().Done():
			case <-r.hung:
			}
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(func() { close(r.hung); r.Close() })
	return r
}

// wait blocks until the receiver has n requests, or fails after limit.
func (r *receiver) wait(t *testing.T, n int, limit time.Duration) []received {
	t.Helper()
	deadline := time.After(limit)
	for {
		r.mu.Lock()
		if len(r.got) >= n {
			out := slices.Clone(r.got)
			r.mu.Unlock()
			return out
		}
		r.mu.Unlock()
		select {
		case <-r.arrive:
		case <-deadline:
			t.Fatalf("the receiver got %d requests in %s, want %d", len(r.got), limit, n)
		}
	}
}

// verifySignature checks a delivery's Standard Webhooks signature with code
// of its own: v1, base64(HMAC-SHA256(key, id.timestamp.body)), the key being
// the base64 after whsec_.
func verifySignature(t *testing.T, secret string, r received) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) != 32 {
		t.Fatalf("secret %q: %v", secret, err)
	}
	id, ts := r.header.Get("webhook-id"), r.header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)) > time.Minute || time.Unix(sec, 0).After(r.at.Add(time.Second)) {
		t.Errorf("webhook-timestamp %q is not the time of the attempt (%v)", ts, r.at)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(r.body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if got := r.header.Get("webhook-signature"); got != want {
		t.Errorf("webhook-signature %q, want %q", got, want)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
}

// webhookService is a served data folder with a catalog, a vendor key and
// a superuser, ready for subscriptions.
type webhookService struct {
	dir, key, token string
	srv             *process
}

func newWebhookService(t *testing.T) *webhookService {
	t.Setenv("ENRICHMENT_WEBHOOK_ALLOW_PRIVATE", "1")
	t.Setenv("ENRICHMENT_WEBHOOK_BACKOFF", "200ms")
	s := &webhookService{dir: t.TempDir()}
	var org string
	org, s.key = newOrgWithKey(t, s.dir, "Hooked")
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Options{Products: 30, Templates: 2, Brands: 2, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cli(t, s.dir, "import", "--org", org, file)
	cli(t, s.dir, "superuser", "upsert", "root@example.com", "root-password-1234")
	s.start(t)
	return s
}

func (s *webhookService) start(t *testing.T) {
	s.srv = startServe(t, s.dir)
	s.token = signIn(t, s.srv.base, "_superusers", "root@example.com", "root-password-1234")
}

// subscribe registers url for events and returns the subscription's id and secret.
func (s *webhookService) subscribe(t *testing.T, url string, events ...string) (int64, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"url": url, "events": events})
	a := send(http.MethodPost, s.srv.base+"/api/enrichment/webhooks", s.key, body)
	var w struct {
		ID     int64
		Secret string
	}
	if a.status != http.StatusCreated || json.Unmarshal(a.body, &w) != nil {
		t.Fatalf("subscribe: %d %s", a.status, a.body)
	}
	return w.ID, w.Secret
}

// proposeAndAccept submits one proposal and accepts it; it returns the
// revision id and when the decision was answered.
func (s *webhookService) proposeAndAccept(t *testing.T) (int64, time.Time) {
	t.Helper()
	var page struct{ Items []struct{ SKU string } }
	if err := json.Unmarshal(mustGet(t, s.srv.base+"/api/enrichment/products?pageSize=1", s.key, 200), &page); err != nil {
		t.Fatal(err)
	}
	a := send(http.MethodPost, s.srv.base+submissionsPath, s.key,
		[]byte(fmt.Sprintf(`{"items":[{"sku":%q,"name":"Hooked %d"}]}`, page.Items[0].SKU, time.Now().UnixNano())))
	ids, err := parseIDs(a.body)
	if a.status != 200 || err != nil || len(ids) != 1 {
		t.Fatalf("submit: %d %s", a.status, a.body)
	}
	d := pbJSON(http.MethodPatch, fmt.Sprintf("%s/api/collections/revisions/records/%d", s.srv.base, ids[0]), s.token,
		map[string]string{"status": "accepted"})
	if d.status != 200 {
		t.Fatalf("accept: %d %s", d.status, d.body)
	}
	return ids[0], time.Now()
}

// deliveries reads a subscription's delivery log.
func (s *webhookService) deliveries(t *testing.T, id int64) []map[string]any {
	t.Helper()
	var page struct{ Items []map[string]any }
	if err := json.Unmarshal(mustGet(t, fmt.Sprintf("%s/api/enrichment/webhooks/%d/deliveries", s.srv.base, id), s.key, 200), &page); err != nil {
		t.Fatal(err)
	}
	return page.Items
}

// TestWebhookRetriedUntilDelivered: a receiver that fails twice then
// answers gets the same signed delivery three times, and the log says so.
func TestWebhookRetriedUntilDelivered(t *testing.T) {
	s := newWebhookService(t)
	r := newReceiver(t, func(n int) int { return map[bool]int{true: 503, false: 200}[n < 2] })
	id, secret := s.subscribe(t, r.URL+"/hooks/enrichment", "revision.accepted")
	rev, decidedAt := s.proposeAndAccept(t)

	got := r.wait(t, 3, 20*time.Second)
	t.Logf("first attempt %s after the decision; retries after %s and %s", got[0].at.Sub(decidedAt).Round(time.Millisecond),
		got[1].at.Sub(got[0].at).Round(time.Millisecond), got[2].at.Sub(got[1].at).Round(time.Millisecond))
	if id := got[0].header.Get("webhook-id"); !regexp.MustCompile(`^msg_[0-9A-Za-z]{26,}$`).MatchString(id) {
		t.Errorf("webhook-id %q, want msg_ and at least 26 characters", id)
	}
	for i, g := range got {
		verifySignature(t, secret, g)
		if g.header.Get("webhook-id") != got[0].header.Get("webhook-id") || !bytes.Equal(g.body, got[0].body) {
			t.Errorf("attempt %d: id %q body %s, not the first attempt's", i, g.header.Get("webhook-id"), g.body)
		}
	}
	var payload struct {
		Type      string
		Timestamp string
		Data      struct {
			ID     int64
			Status string
			Fields map[string]string
		}
	}
	if err := json.Unmarshal(got[0].body, &payload); err != nil || payload.Type != "revision.accepted" ||
		payload.Data.ID != rev || payload.Data.Status != "accepted" || payload.Data.Fields["name"] != "applied" {
		t.Errorf("payload %s: %v", got[0].body, err)
	}
	var ds []map[string]any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ds = s.deliveries(t, id); len(ds) == 1 && ds[0]["status"] == "delivered" {
			break
		}
	}
	if len(ds) != 1 || ds[0]["status"] != "delivered" || ds[0]["attempts"] != 3.0 || ds[0]["lastStatusCode"] != 200.0 ||
		ds[0]["revisionId"] != float64(rev) || ds[0]["deliveredAt"] == nil || ds[0]["messageId"] != got[0].header.Get("webhook-id") {
		t.Errorf("delivery log %v", ds)
	}
	time.Sleep(600 * time.Millisecond)
	if n := len(r.wait(t, 3, time.Second)); n != 3 {
		t.Errorf("%d requests after the delivery succeeded", n)
	}
}

// TestWebhookSurvivesCrash kills the server while a delivery is on the
// wire (the receiver hangs); after a restart the same delivery arrives.
func TestWebhookSurvivesCrash(t *testing.T) {
	s := newWebhookService(t)
	r := newReceiver(t, func(n int) int { return map[bool]int{true: 0, false: 204}[n == 0] })
	id, secret := s.subscribe(t, r.URL, "revision.accepted")
	s.proposeAndAccept(t)
	first := r.wait(t, 1, 10*time.Second)[0]

	if err := s.srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.srv.done
	s.start(t)
	got := r.wait(t, 2, 15*time.Second)
	verifySignature(t, secret, got[1])
	if got[1].header.Get("webhook-id") != first.header.Get("webhook-id") || !bytes.Equal(got[1].body, first.body) {
		t.Errorf("after the restart: id %q body %s; before: %q %s", got[1].header.Get("webhook-id"), got[1].body,
			first.header.Get("webhook-id"), first.body)
	}
	var ds []map[string]any
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ds = s.deliveries(t, id); len(ds) == 1 && ds[0]["status"] == "delivered" {
			break
		}
	}
	if len(ds) != 1 || ds[0]["status"] != "delivered" || ds[0]["lastStatusCode"] != 204.0 {
		t.Errorf("delivery log after the crash: %v", ds)
	}
}
