package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// request is one HTTP request a kind of load sends.
type request struct {
	Method string
	URL    string
	Body   []byte
	Items  int         // items the answer should carry, when the kind cannot count them
	Header http.Header // set over the kind's headers, when not nil
}

// kind is one kind of request: how to make the next one and how to read
// the answer.
type kind struct {
	Name   string
	Unit   string // what Items counts ("products", "proposals"); "" for none
	Status int    // the expected status; 0 means 200
	Also   []int  // other statuses that are answers as expected (a refusal under load)
	Header http.Header
	Next   func(rng *rand.Rand, seq int) request
	// Count reads how many items an answer carries; nil: request.Items.
	Count func(body []byte) int
}

func (k *kind) wantStatus() int {
	if k.Status == 0 {
		return http.StatusOK
	}
	return k.Status
}

// expected reports whether status is an answer the kind expects.
func (k *kind) expected(status int) bool {
	return status == k.wantStatus() || slices.Contains(k.Also, status)
}

// tally is what the workers of one kind saw.
type tally struct {
	Requests  int
	Unexpect  int // answers with another status than expected
	Status    map[int]int
	Errors    map[string]int // requests that got no answer
	Locked    int            // answers that mention "database is locked"
	Samples   []string       // the first unexpected answers, shortened
	Bytes     int64
	Items     int64
	Latencies []time.Duration
}

func newTally() *tally {
	return &tally{Status: map[int]int{}, Errors: map[string]int{}}
}

func (t *tally) merge(o *tally) {
	t.Requests += o.Requests
	t.Unexpect += o.Unexpect
	t.Locked += o.Locked
	t.Bytes += o.Bytes
	t.Items += o.Items
	t.Latencies = append(t.Latencies, o.Latencies...)
	for k, v := range o.Status {
		t.Status[k] += v
	}
	for k, v := range o.Errors {
		t.Errors[k] += v
	}
	for _, s := range o.Samples {
		if len(t.Samples) < 5 {
			t.Samples = append(t.Samples, s)
		}
	}
}

// newClient is an HTTP client over loopback that keeps one connection per
// worker and never compresses (PocketBase does not either by default).
func newClient(workers int) *http.Client {
	return &http.Client{
		Timeout: 2 * time.Minute, // a full batch under the mixed load stays far below
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConns:        workers + 8,
			MaxIdleConnsPerHost: workers + 8,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
	}
}

// assignment is one worker's kind.
type assignment struct {
	Kind *kind
	Seed uint64
}

// runLoad runs a closed loop: each worker sends its kind's next request as
// soon as the previous one was answered, until the duration is over. It
// returns the tally per kind name and the wall time from start until the
// last worker finished.
func runLoad(ctx context.Context, base string, workers []assignment, d time.Duration) (map[string]*tally, time.Duration) {
	client := newClient(len(workers))
	defer client.CloseIdleConnections()
	start := time.Now()
	deadline := start.Add(d)
	tallies := make([]*tally, len(workers))
	var wg sync.WaitGroup
	for i, a := range workers {
		tallies[i] = newTally()
		wg.Go(func() { work(ctx, client, base, a, deadline, tallies[i]) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	out := map[string]*tally{}
	for i, a := range workers {
		if out[a.Kind.Name] == nil {
			out[a.Kind.Name] = newTally()
		}
		out[a.Kind.Name].merge(tallies[i])
	}
	return out, elapsed
}

func work(ctx context.Context, client *http.Client, base string, a assignment, deadline time.Time, t *tally) {
	k := a.Kind
	rng := rand.New(rand.NewPCG(a.Seed, 0xbe7c4))
	header := k.Header.Clone()
	var body bytes.Buffer
	for seq := 0; time.Now().Before(deadline) && ctx.Err() == nil; seq++ {
		r := k.Next(rng, seq)
		req, err := http.NewRequestWithContext(ctx, r.Method, base+r.URL, bytes.NewReader(r.Body))
		if err != nil {
			t.Errors[err.Error()]++
			return
		}
		req.Header = header
		if r.Header != nil {
			req.Header = header.Clone()
			for name, v := range r.Header {
				req.Header[name] = v
			}
		}
		began := time.Now()
		resp, err := client.Do(req)
		if err == nil {
			body.Reset()
			_, err = body.ReadFrom(resp.Body)
			resp.Body.Close()
		}
		took := time.Since(began)
		if err != nil {
			if ctx.Err() != nil {
				return // interrupted: not the server's fault
			}
			t.Requests++
			t.Errors[errorClass(err)]++
			time.Sleep(20 * time.Millisecond) // no hot loop against a dead server
			continue
		}
		t.Requests++
		t.Status[resp.StatusCode]++
		t.Latencies = append(t.Latencies, took)
		t.Bytes += int64(body.Len())
		b := body.Bytes()
		if !k.expected(resp.StatusCode) {
			t.Unexpect++
			if bytes.Contains(b, []byte("database is locked")) {
				t.Locked++
			}
			if len(t.Samples) < 5 {
				t.Samples = append(t.Samples, strconv.Itoa(resp.StatusCode)+" "+r.Method+" "+shorten(r.URL, 120)+": "+shorten(string(b), 300))
			}
			continue
		}
		if resp.StatusCode != k.wantStatus() {
			continue // an expected refusal carries no items
		}
		if k.Count != nil {
			t.Items += int64(k.Count(b))
		} else {
			t.Items += int64(r.Items)
		}
	}
}

// errorClass groups transport errors so the report stays short.
func errorClass(err error) string {
	var ne net.Error
	switch s := err.Error(); {
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case strings.Contains(s, "connection refused"):
		return "connection refused"
	case strings.Contains(s, "connection reset"):
		return "connection reset"
	case strings.Contains(s, "EOF"):
		return "connection closed (EOF)"
	default:
		return shorten(s, 120)
	}
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// latency is a summary of response times in milliseconds.
type latency struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

func summarize(d []time.Duration) latency {
	if len(d) == 0 {
		return latency{}
	}
	slices.Sort(d)
	q := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(d)))) - 1 // nearest rank
		return ms(d[max(0, min(i, len(d)-1))])
	}
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return latency{P50: q(0.50), P95: q(0.95), P99: q(0.99), Max: ms(d[len(d)-1]), Mean: ms(sum / time.Duration(len(d)))}
}

func ms(d time.Duration) float64 {
	return round(float64(d.Nanoseconds())/1e6, 3)
}

func round(x float64, digits int) float64 {
	p := math.Pow10(digits)
	return math.Round(x*p) / p
}
