package ratelimit

import (
	"sync"
	"testing"
	"time"
)

// clock is a fake time source the test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestBucket(t *testing.T) {
	c := &clock{t: time.Unix(1700000000, 0)}
	l := New(c.now)

	// a fresh bucket of 2 per second holds 4: four pass, the fifth waits half a second
	for i := range 4 {
		d := l.Allow(1, 2)
		if !d.Allowed || d.Limit != 4 || d.Remaining != 3-i {
			t.Fatalf("request %d: %+v", i+1, d)
		}
	}
	d := l.Allow(1, 2)
	if d.Allowed || d.RetryAfter != 500*time.Millisecond || d.Remaining != 0 || d.Reset != 2*time.Second {
		t.Fatalf("fifth request: %+v", d)
	}
	// other keys have their own buckets
	if d := l.Allow(2, 2); !d.Allowed || d.Remaining != 3 {
		t.Fatalf("other key: %+v", d)
	}
	// half a second refills one token, not more
	c.advance(500 * time.Millisecond)
	if d := l.Allow(1, 2); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("after refill: %+v", d)
	}
	if d := l.Allow(1, 2); d.Allowed {
		t.Fatalf("second after refill: %+v", d)
	}
	// a long pause fills the bucket only to its size
	c.advance(time.Hour)
	if d := l.Allow(1, 2); !d.Allowed || d.Remaining != 3 {
		t.Fatalf("after an hour: %+v", d)
	}
	// a raised limit applies at once
	c.advance(time.Hour)
	if d := l.Allow(1, 10); !d.Allowed || d.Limit != 20 || d.Remaining != 19 {
		t.Fatalf("raised limit: %+v", d)
	}
}

func TestSustainedRate(t *testing.T) {
	c := &clock{t: time.Unix(1700000000, 0)}
	l := New(c.now)
	allowed := 0
	// 100 requests a second for 10 seconds against a limit of 20/s: 20*10 plus the burst of 40
	for range 1000 {
		if l.Allow(7, 20).Allowed {
			allowed++
		}
		c.advance(10 * time.Millisecond)
	}
	if allowed < 238 || allowed > 241 {
		t.Errorf("%d allowed in 10 s at 20/s with a burst of 40, want about 240", allowed)
	}
}

func TestConcurrent(t *testing.T) {
	l := New(nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if l.Allow(3, 5).Allowed {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	// 800 requests in far less than a second: the burst of 10, maybe one refilled
	if allowed < 10 || allowed > 12 {
		t.Errorf("%d of 800 allowed, want the burst of 10", allowed)
	}
}
