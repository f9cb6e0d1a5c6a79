package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The memory attack: many concurrent 16 MiB submissions (dry runs: they
// store nothing, and once cost the server about 80 MB each while decoded),
// with small requests of another key going on meanwhile. Measured: the
// server's own memory (RssAnon) at its peak, the other key's latency, and
// how long the memory takes to come back near its level before the attack
// once the attack ends.

// attackBodySize is a body just under the submissions' 16 MiB limit.
const attackBodySize = 16<<20 - 4<<10

// attackSettle is how long the memory is watched after the attack.
const attackSettle = 20 * time.Second

// nearIdle is how far above its level before the attack the server's
// memory may be and count as back.
const nearIdle = 32 << 20

// attackBodies are two 16 MiB submissions of 1000 items for existing SKUs:
// one of long descriptions, one of many small attributes, which cost the
// decoder the most per byte of body.
func (t *target) attackBodies() [][]byte {
	rng := rand.New(rand.NewPCG(16, 20))
	skus := distinct(rng, len(t.Products), 1000)
	item := func(i int, fill func(room int) any, key string) map[string]any {
		return map[string]any{"sku": t.Products[skus[i]].SKU, "confidence": 50, key: fill(attackBodySize/len(skus) - 80)}
	}
	description := func(room int) any {
		return strings.Repeat(sentences[0]+" ", room/(len(sentences[0])+1))
	}
	attributes := func(room int) any {
		var attrs []map[string]string
		for n := 0; n < room; n += 36 { // {"attribute":"A123","detail":"d"}, and a comma
			attrs = append(attrs, map[string]string{"attribute": "A" + strconv.Itoa(len(attrs)), "detail": "d"})
		}
		return attrs
	}
	var out [][]byte
	for _, shape := range []struct {
		key  string
		fill func(int) any
	}{{"description", description}, {"attributes", attributes}} {
		items := make([]map[string]any, len(skus))
		for i := range items {
			items[i] = item(i, shape.fill, shape.key)
		}
		b, err := json.Marshal(map[string]any{"items": items})
		if err != nil {
			panic(err) // plain maps always encode
		}
		if len(b) > 16<<20 {
			panic(fmt.Sprintf("attack body of %d bytes is over the limit", len(b)))
		}
		out = append(out, b)
	}
	return out
}

// attack sends the 16 MiB dry-run submissions with keys, one picked per
// request, the two shapes in turn. Expected: 200, or 503 when the body
// budget has no room, or 429 past the key's rate limit.
func (t *target) attack(name string, keys []string, bodies [][]byte) *kind {
	return &kind{Name: name, Unit: "proposals", Header: t.keyHeader(),
		Also:  []int{http.StatusServiceUnavailable, http.StatusTooManyRequests},
		Count: func(b []byte) int { return bytes.Count(b, createdMarker) },
		Next: func(rng *rand.Rand, seq int) request {
			return request{Method: "POST", URL: "/api/enrichment/products/submissions?dryRun=true",
				Body: bodies[seq%len(bodies)], Header: http.Header{"X-Api-Client-Key": {keys[rng.IntN(len(keys))]}}}
		}}
}

// attackScenario is n workers attacking with keys, and two workers of
// another key's small requests (a random page of 20 products).
func attackScenario(t *target, name, about string, n int, keys []string, bodies [][]byte) scenario {
	sc := scenario{Name: name, About: about, Settle: attackSettle}
	a, b := t.attack(name, keys, bodies), t.export(name+"-bystander", 20, "random")
	for i := range n {
		sc.Workers = append(sc.Workers, assignment{Kind: a, Seed: seed(name, i)})
	}
	for i := range 2 {
		sc.Workers = append(sc.Workers, assignment{Kind: b, Seed: seed(b.Name, i)})
	}
	return sc
}

// attackResult is the memory of the server around an attack.
type attackResult struct {
	IdleAnonMB    float64 `json:"idleAnonMB"`    // RssAnon before the attack (mean over 2 s)
	PeakAnonMB    float64 `json:"peakAnonMB"`    // RssAnon at its peak during the attack
	BackToMB      float64 `json:"backToMB"`      // the level that counts as back: idle + nearIdle
	ReturnSeconds float64 `json:"returnSeconds"` // from the attack's last answer until RssAnon was back; -1: not while watched
	AfterAnonMB   float64 `json:"afterAnonMB"`   // RssAnon at the end of the watch
}

// idleAnon is the server's mean RssAnon over the next two seconds.
func (h *harness) idleAnon() int64 {
	start := time.Now()
	time.Sleep(2 * time.Second)
	var sum, n int64
	for _, s := range h.srv.window(start, time.Now()) {
		sum += s.Anon
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

// settle watches the server's RssAnon after a load that ended at end, for
// up to watch, until it is back within nearIdle of idle.
func (h *harness) settle(idle int64, end time.Time, watch time.Duration) attackResult {
	r := attackResult{IdleAnonMB: mb(idle), BackToMB: mb(idle + nearIdle), ReturnSeconds: -1}
	for time.Since(end) < watch && h.ctx.Err() == nil {
		time.Sleep(sampleEvery)
		w := h.srv.window(end, time.Now())
		if len(w) == 0 {
			continue
		}
		last := w[len(w)-1]
		r.AfterAnonMB = mb(last.Anon)
		if last.Anon <= idle+nearIdle {
			r.ReturnSeconds = round(last.At.Sub(end).Seconds(), 2)
			break
		}
	}
	return r
}
