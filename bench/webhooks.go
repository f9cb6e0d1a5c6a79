package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"
)

// webhookResult is what the harness measured of webhook delivery.
type webhookResult struct {
	// from queueing a ping (POST /webhooks/{id}/test) to its arrival at a
	// local receiver, one at a time
	Pings        int     `json:"pings"`
	LatencyP50Ms float64 `json:"latencyP50Ms"`
	LatencyP95Ms float64 `json:"latencyP95Ms"`
	// pings queued at once to 8 subscriptions of a local receiver
	Deliveries       int     `json:"deliveries"`
	DeliveriesPerSec float64 `json:"deliveriesPerSec"`
	// export500 while 8 subscriptions to a receiver that never answers hold
	// every delivery worker, against export500 alone (the scenario above)
	ExportHung scenarioResult `json:"exportHung"`
}

// webhookKey names the API client whose subscriptions the harness makes.
const webhookKey = "webhooks"

// receiver is a webhook receiver on 127.0.0.1: it notes when each
// delivery (by webhook-id) arrived, and answers 204, or never.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	arrived map[string]time.Time
	signal  chan string
	hang    chan struct{}
}

func newReceiver(hang bool) *receiver {
	r := &receiver{arrived: map[string]time.Time{}, signal: make(chan string, 10000), hang: make(chan struct{})}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get("webhook-id")
		r.mu.Lock()
		if _, seen := r.arrived[id]; !seen {
			r.arrived[id] = time.Now()
		}
		r.mu.Unlock()
		select {
		case r.signal <- id:
		default:
		}
		if hang {
			select {
			case <-req.Context().Done():
			case <-r.hang:
			}
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	return r
}

func (r *receiver) stop() {
	close(r.hang)
	r.Close()
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.arrived)
}

// webhookAPI calls the webhook routes with one submit key.
type webhookAPI struct {
	ctx    context.Context
	base   string
	key    string
	client *http.Client
}

// call sends body (nil: none) and decodes a 2xx answer into into (nil: none).
func (a webhookAPI) call(method, path string, body any, into any) error {
	var buf bytes.Buffer
	if body != nil {
		_ = json.NewEncoder(&buf).Encode(body)
	}
	req, _ := http.NewRequestWithContext(a.ctx, method, a.base+path, &buf)
	req.Header = header(a.key)
	res, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s", method, path, res.Status)
	}
	if into != nil {
		return json.NewDecoder(res.Body).Decode(into)
	}
	return nil
}

// subscribe subscribes url to pings and answers the webhook's id.
func (a webhookAPI) subscribe(url string) (int64, error) {
	var w struct{ ID int64 }
	err := a.call(http.MethodPost, "/webhooks", map[string]any{"url": url, "events": []string{"ping"}}, &w)
	return w.ID, err
}

// ping queues a test delivery to webhook id and answers the delivery's id.
func (a webhookAPI) ping(id int64) (string, error) {
	var d struct{ ID int64 }
	err := a.call(http.MethodPost, fmt.Sprintf("/webhooks/%d/test", id), nil, &d)
	return fmt.Sprint(d.ID), err
}

// unsubscribe deletes the webhooks ids.
func (a webhookAPI) unsubscribe(ids []int64) error {
	for _, id := range ids {
		if err := a.call(http.MethodDelete, fmt.Sprintf("/webhooks/%d", id), nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// measureWebhooks measures delivery latency, the dispatcher's throughput,
// and the export beside a receiver that never answers.
func (h *harness) measureWebhooks(t *target) (*webhookResult, error) {
	api := webhookAPI{ctx: h.ctx, base: h.srv.base + "/api/enrichment", key: t.SubmitKeys[webhookKey],
		client: &http.Client{Timeout: 30 * time.Second}}
	res := &webhookResult{}
	fast := newReceiver(false)
	defer fast.stop()
	first, err := api.subscribe(fast.URL)
	if err != nil {
		return nil, err
	}
	if err := measureWebhookLatency(api, fast, first, res); err != nil {
		return nil, err
	}
	if err := measureWebhookThroughput(api, fast, first, res); err != nil {
		return nil, err
	}
	return res, h.measureExportBesideHungWebhooks(api, t, res)
}

// measureWebhookLatency pings webhook first 200 times, one at a time, and
// records the time from queueing to arrival at fast.
func measureWebhookLatency(api webhookAPI, fast *receiver, first int64, res *webhookResult) error {
	var lat []float64
	for range 200 {
		start := time.Now()
		id, err := api.ping(first)
		if err != nil {
			return err
		}
		for got := ""; got != id; {
			select {
			case got = <-fast.signal:
			case <-time.After(10 * time.Second):
				return fmt.Errorf("ping %s did not arrive within 10 s", id)
			}
		}
		fast.mu.Lock()
		lat = append(lat, float64(fast.arrived[id].Sub(start).Microseconds())/1000)
		fast.mu.Unlock()
	}
	slices.Sort(lat)
	res.Pings, res.LatencyP50Ms, res.LatencyP95Ms = len(lat), round(lat[len(lat)/2], 2), round(lat[len(lat)*95/100], 2)
	logf("webhooks: %d pings one at a time, from queueing to arrival p50 %.2f ms, p95 %.2f ms", len(lat), res.LatencyP50Ms, res.LatencyP95Ms)
	return nil
}

// measureWebhookThroughput queues 250 pings to each of 8 subscriptions
// (first and 7 more) at once and measures how fast they reach fast.
func measureWebhookThroughput(api webhookAPI, fast *receiver, first int64, res *webhookResult) error {
	subs := []int64{first}
	for range 7 {
		id, err := api.subscribe(fast.URL)
		if err != nil {
			return err
		}
		subs = append(subs, id)
	}
	before := fast.count()
	const each = 250
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, len(subs))
	for _, id := range subs {
		wg.Go(func() {
			for range each {
				if _, err := api.ping(id); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	want := before + each*len(subs)
	for deadline := time.Now().Add(2 * time.Minute); fast.count() < want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	res.Deliveries = fast.count() - before
	res.DeliveriesPerSec = round(float64(res.Deliveries)/time.Since(start).Seconds(), 0)
	logf("webhooks: %d pings to 8 subscriptions delivered in %.2f s: %.0f deliveries/s", res.Deliveries, time.Since(start).Seconds(), res.DeliveriesPerSec)
	return api.unsubscribe(subs)
}

// measureExportBesideHungWebhooks runs the export while every delivery
// worker waits on a receiver that never answers.
func (h *harness) measureExportBesideHungWebhooks(api webhookAPI, t *target, res *webhookResult) error {
	hung := newReceiver(true)
	defer hung.stop()
	var hungSubs []int64
	for range 8 {
		id, err := api.subscribe(hung.URL)
		if err != nil {
			return err
		}
		hungSubs = append(hungSubs, id)
		for range 5 {
			if _, err := api.ping(id); err != nil {
				return err
			}
		}
	}
	for deadline := time.Now().Add(10 * time.Second); hung.count() < len(hungSubs) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	logf("webhooks: %d deliveries hang on a receiver that never answers; export500 beside them", hung.count())
	sc := one("GET /products, 500 a page, random pages, while 8 webhook deliveries hang", t.export("export500-hung-receiver", 500, "random"), h.cfg.Concurrency)
	res.ExportHung = h.run(sc, false)
	return api.unsubscribe(hungSubs)
}
