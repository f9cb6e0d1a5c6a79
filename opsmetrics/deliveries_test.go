package opsmetrics_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/webhooks"
)

// A delivery that fails once and then succeeds: due while it waits, then
// counted once as a retry and once as delivered.
func TestDeliverySeries(t *testing.T) {
	t.Setenv(webhooks.AllowPrivateEnv, "1") // the receiver is on loopback
	t.Setenv(webhooks.BackoffEnv, "20ms")
	var calls atomic.Int32
	delivered := make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			rw.WriteHeader(http.StatusInternalServerError)
			return
		}
		rw.WriteHeader(http.StatusNoContent)
		close(delivered)
	}))
	defer receiver.Close()

	w := newWorld(t, opsmetrics.Config{})
	rec := fixture.Send(w.h, http.MethodPost, "/api/enrichment/webhooks", routes.KeyHeader, w.f.A.Keys["both"],
		`{"url":"`+receiver.URL+`/hook","events":["revision.accepted"]}`)
	if rec.Code != 201 && rec.Code != 200 {
		t.Fatalf("subscribe: %d %s", rec.Code, rec.Body)
	}
	ids := w.submit(`{"sku":"SKU-1","confidence":90,"name":"Delivered name"}`)
	due := func() float64 { return w.value("enrichment_webhook_deliveries_due") }
	w.moved("deliveries due", due, 1, func() {
		reviewer := fixture.ReviewerToken(t, w.app, string(w.f.A.Org))
		if rec := fixture.Send(w.h, http.MethodPatch, "/api/collections/revisions/records/"+ids[0], "Authorization", reviewer,
			`{"status":"accepted"}`); rec.Code != 200 {
			t.Fatalf("decide: %d %s", rec.Code, rec.Body)
		}
	})

	d, err := webhooks.NewDispatcher(w.app)
	if err != nil {
		t.Fatal(err)
	}
	d.Start()
	defer d.Stop()
	select {
	case <-delivered:
	case <-time.After(20 * time.Second):
		t.Fatalf("not delivered; %d calls", calls.Load())
	}
	// note: the attempt is counted once its outcome is stored, just after the answer
	count := func(outcome string) float64 {
		return w.count("enrichment_webhook_deliveries_total", "outcome", outcome)
	}
	for deadline := time.Now().Add(10 * time.Second); count(opsmetrics.DeliveryDelivered) == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if got := [3]float64{count(opsmetrics.DeliveryRetry), count(opsmetrics.DeliveryDelivered), count(opsmetrics.DeliveryFailed)}; got != [3]float64{1, 1, 0} {
		t.Errorf("retry, delivered, failed: %v, want [1 1 0]", got)
	}
	if got := due(); got != 0 {
		t.Errorf("deliveries due after the delivery: %v", got)
	}
}
