// Package ratelimit limits requests per API key with token buckets: a key
// allowed r requests per second holds up to 2r tokens, refilled at r per
// second, so a client may burst briefly but not sustain more than r.
package ratelimit

import (
	"math"
	"sync"
	"time"
)

// BurstFactor is how many seconds' worth of requests a bucket holds.
const BurstFactor = 2

// Decision is the outcome of one request against its key's bucket, with
// what the RateLimit-* response headers report.
type Decision struct {
	Allowed    bool
	Limit      int           // bucket size: the most requests allowed at once
	Remaining  int           // whole tokens left after this request
	Reset      time.Duration // until the bucket is full again
	RetryAfter time.Duration // until one request is allowed again (when refused)
}

// Limiter keeps one bucket per key; it is safe for concurrent use.
type Limiter struct {
	mu      sync.Mutex
	buckets map[int64]*bucket
	now     func() time.Time
}

type bucket struct {
	rate   float64 // tokens per second
	tokens float64
	last   time.Time
}

// New returns a limiter reading time from now (time.Now when nil).
func New(now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{buckets: map[int64]*bucket{}, now: now}
}

// Allow takes a token from key's bucket, sized for perSecond requests per
// second. A changed limit (say, edited in the dashboard) applies at once.
func (l *Limiter) Allow(key int64, perSecond int) Decision {
	rate := float64(perSecond)
	size := rate * BurstFactor
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{rate: rate, tokens: size, last: now}
		l.buckets[key] = b
	}
	b.rate = rate
	b.tokens = math.Min(size, b.tokens+now.Sub(b.last).Seconds()*rate)
	b.last = now

	d := Decision{Limit: int(size)}
	if b.tokens >= 1 {
		b.tokens--
		d.Allowed = true
	} else {
		d.RetryAfter = seconds((1 - b.tokens) / rate)
	}
	d.Remaining = int(b.tokens)
	d.Reset = seconds((size - b.tokens) / rate)
	return d
}

func seconds(s float64) time.Duration {
	return time.Duration(s * float64(time.Second))
}
