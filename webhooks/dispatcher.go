// Package webhooks delivers the vendors' webhook events (docs/webhooks.md):
// the deliveries that the store writes into its outbox, in the transaction
// of each state change, are sent by a dispatcher in the server, signed the
// Standard Webhooks way, retried on a schedule, and never to an address
// that is not public.
package webhooks

import (
	"bytes"
	"context"
	"fmt"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// BackoffEnv names the environment variable that scales the retry
// schedule: the first delay as a Go duration (default 5s); the others keep
// their proportion to it.
const BackoffEnv = "ENRICHMENT_WEBHOOK_BACKOFF"

// retryDelays are the waits before each retry; after the last one fails,
// the delivery has failed.
var retryDelays = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute,
	time.Hour, 6 * time.Hour, 12 * time.Hour}

const (
	// attemptTimeout is how long a receiver has to answer 2xx.
	attemptTimeout = 10 * time.Second
	// workers bounds the attempts in flight across all subscriptions; each
	// subscription has at most one, so a slow receiver holds one worker.
	workers = 8
	// pollEvery bounds how late a delivery queued without a Notify (by the
	// command line, say) is picked up.
	pollEvery = time.Second
)

const dispatcherKey = "enrichmentWebhookDispatcher"

// Dispatcher sends an app's due deliveries.
type Dispatcher struct {
	app    core.App
	st     *store.Store
	client *http.Client
	delays []time.Duration

	signal chan struct{}
	mu     sync.Mutex
	busy   map[int64]bool // subscriptions with an attempt in flight
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Register runs a dispatcher while app serves (`serve`, `demo`), stopping
// it, and abandoning the attempts in flight to a later start, when app
// terminates.
func Register(app core.App) {
	app.OnServe().BindFunc(func(e *core.ServeEvent) error {
		// note: a SecretKeyEnv refused stops the start with its reason,
		// rather than failing each webhook's creation with a 500; the
		// KeyFile is still made on first use
		if err := checkKeyEnv(); err != nil {
			return fmt.Errorf("webhook secrets: %w", err)
		}
		d, err := NewDispatcher(app)
		if err != nil {
			return err
		}
		d.Start()
		app.OnTerminate().BindFunc(func(te *core.TerminateEvent) error {
			d.Stop()
			return te.Next()
		})
		return e.Next()
	})
}

// NewDispatcher makes app's dispatcher, reading the retry schedule's scale
// from BackoffEnv.
func NewDispatcher(app core.App) (*Dispatcher, error) {
	delays, err := schedule(os.Getenv(BackoffEnv))
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: attemptTimeout, Control: guardedControl}
	transport := &http.Transport{
		Proxy:                 nil, // note: the guard must see the receiver's own address
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   attemptTimeout,
		ResponseHeaderTimeout: attemptTimeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
	}
	return &Dispatcher{
		app: app, st: store.New(app), delays: delays,
		client: &http.Client{Transport: transport, Timeout: attemptTimeout,
			// note: a redirect is an answer that is not 2xx, not a new target
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		signal: make(chan struct{}, 1),
		busy:   map[int64]bool{},
	}, nil
}

// schedule scales retryDelays so that the first is first (a Go duration;
// "" keeps 5s).
func schedule(first string) ([]time.Duration, error) {
	if first == "" {
		return retryDelays, nil
	}
	d, err := time.ParseDuration(first)
	if err != nil || d <= 0 {
		return nil, fmt.Errorf("%s must be a positive Go duration such as 5s or 100ms, got %q", BackoffEnv, first)
	}
	out := make([]time.Duration, len(retryDelays))
	for i, r := range retryDelays {
		out[i] = time.Duration(float64(r) * float64(d) / float64(retryDelays[0]))
	}
	return out, nil
}

// retryIn is the wait before the retry of a delivery whose attempt failed
// after attempts earlier ones: the schedule's delay for it, scaled by
// 0.9 + 0.2*jitter (jitter in [0, 1): ±10%, so that retries of many
// deliveries spread out); false once the schedule is spent, when the
// delivery has failed.
func retryIn(delays []time.Duration, attempts int, jitter float64) (time.Duration, bool) {
	if attempts < 0 || attempts >= len(delays) {
		return 0, false
	}
	return time.Duration(float64(delays[attempts]) * (0.9 + 0.2*jitter)), true
}

// Start runs the dispatcher until Stop, and makes it the one Notify wakes.
func (d *Dispatcher) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	d.app.Store().Set(dispatcherKey, d)
	d.wg.Go(func() { d.loop(ctx) })
}

// Stop ends the dispatcher and waits for its attempts to end.
func (d *Dispatcher) Stop() {
	if d.app.Store().Get(dispatcherKey) == d {
		d.app.Store().Remove(dispatcherKey)
	}
	if d.cancel != nil {
		d.cancel()
	}
	d.wg.Wait()
}

func (d *Dispatcher) wake() {
	select {
	case d.signal <- struct{}{}:
	default: // already woken
	}
}

func (d *Dispatcher) loop(ctx context.Context) {
	for {
		wait := d.dispatch(ctx)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-d.signal:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// dispatch starts an attempt of the oldest due delivery of each
// subscription that has none in flight, as far as workers are free, and
// returns how long to sleep before looking again.
func (d *Dispatcher) dispatch(ctx context.Context) time.Duration {
	d.mu.Lock()
	busy := make(map[int64]bool, len(d.busy))
	for id := range d.busy {
		busy[id] = true
	}
	free := workers - len(d.busy)
	d.mu.Unlock()
	if free > 0 {
		due, err := d.st.Outbox().DueDeliveries(time.Now(), busy)
		if err != nil {
			d.app.Logger().Error("enrichment: find due webhook deliveries", "error", err.Error())
			return pollEvery
		}
		for _, dd := range due[:min(free, len(due))] {
			d.mu.Lock()
			d.busy[dd.Webhook] = true
			d.mu.Unlock()
			d.wg.Go(func() { d.attempt(ctx, dd) })
		}
	}
	next, err := d.st.Outbox().NextDeliveryAt()
	if err != nil || next.IsZero() {
		return pollEvery
	}
	return min(max(time.Until(next), 10*time.Millisecond), pollEvery)
}

// attempt sends one delivery and records what came of it.
func (d *Dispatcher) attempt(ctx context.Context, dd store.DueDelivery) {
	defer func() {
		d.mu.Lock()
		delete(d.busy, dd.Webhook)
		d.mu.Unlock()
		d.wake()
	}()
	at := time.Now()
	outcome := d.send(ctx, dd, at)
	if ctx.Err() != nil {
		return // stopping: the delivery stays pending for the next start
	}
	if !outcome.Delivered {
		outcome.RetryIn, _ = retryIn(d.delays, dd.Attempts, rand.Float64())
	}
	if err := d.st.Outbox().RecordAttempt(dd, time.Now(), outcome); err != nil {
		d.app.Logger().Error("enrichment: record a webhook attempt", "error", err.Error(), "delivery", dd.ID)
		return
	}
	opsmetrics.Of(d.app).Deliveries.WithLabelValues(outcomeOf(outcome)).Inc()
}

// outcomeOf names an attempt's outcome as the operators' metrics count it.
func outcomeOf(o store.DeliveryOutcome) string {
	switch {
	case o.Delivered:
		return opsmetrics.DeliveryDelivered
	case o.RetryIn > 0:
		return opsmetrics.DeliveryRetry
	default:
		return opsmetrics.DeliveryFailed
	}
}

// send makes one signed POST of the delivery's payload.
func (d *Dispatcher) send(ctx context.Context, dd store.DueDelivery, at time.Time) store.DeliveryOutcome {
	keys, err := keyringOf(d.app)
	if err != nil {
		return store.DeliveryOutcome{Error: "the webhook secrets key is unavailable: " + err.Error()}
	}
	secret, err := keys.Open(dd.SealedSecret)
	if err != nil {
		return store.DeliveryOutcome{Error: err.Error()}
	}
	signer, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return store.DeliveryOutcome{Error: "the signing secret is malformed"}
	}
	id := dd.MessageID
	signature, err := signer.Sign(id, at, dd.Payload)
	if err != nil {
		return store.DeliveryOutcome{Error: "signing failed: " + err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, dd.URL, bytes.NewReader(dd.Payload))
	if err != nil {
		return store.DeliveryOutcome{Error: "bad URL: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "CatalogEnrichment-Webhooks/2")
	req.Header.Set(standardwebhooks.HeaderWebhookID, id)
	req.Header.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(standardwebhooks.HeaderWebhookSignature, signature)
	res, err := d.client.Do(req)
	if err != nil {
		return store.DeliveryOutcome{Error: err.Error()}
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return store.DeliveryOutcome{StatusCode: res.StatusCode, Error: "the receiver answered " + res.Status}
	}
	return store.DeliveryOutcome{Delivered: true, StatusCode: res.StatusCode}
}
