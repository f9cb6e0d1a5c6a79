// Package bodybudget bounds the bytes of request bodies that the server
// holds at once, across all requests. A request takes its body's size from
// the budget before the body is read and gives it back once it is answered;
// when the budget is spent, it waits a little for others to finish, then is
// turned away (the caller answers 503). One holder (an API client, an
// address) may take at most half of the budget, so that one client cannot
// shut the others out. And when the last body of a burst is given back, the
// memory the burst used is handed back to the operating system at once
// instead of minutes later.
package bodybudget

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"
)

// ErrBusy is the refusal of a request that found no room in the budget.
var ErrBusy = errors.New("request bodies in flight use the whole budget")

// Memory is handed back to the operating system once nothing is in flight
// for returnDelay after at least returnAfter bytes were taken: the heap of
// a few large bodies, not of every small request.
const (
	returnAfter = 32 << 20
	returnDelay = 500 * time.Millisecond
)

// Budget is a number of bytes shared by the requests in flight; it is safe
// for concurrent use.
type Budget struct {
	capacity, share int64

	mu       sync.Mutex
	shares   map[string]int64 // holders whose share is not the default half
	used     int64
	byHolder map[string]int64
	freed    chan struct{} // closed, and replaced, whenever bytes are given back
	taken    int64         // bytes taken since memory was last handed back
	pending  bool          // a hand-back is scheduled
	// returnMemory hands freed memory back to the OS; tests replace it.
	returnMemory func()
}

// New returns a budget of capacity bytes.
func New(capacity int64) *Budget {
	return &Budget{capacity: capacity, share: capacity / 2, byHolder: map[string]int64{}, shares: map[string]int64{},
		freed: make(chan struct{}), returnMemory: debug.FreeOSMemory}
}

// SetShare sets the most that holder may take at once, instead of half of
// the budget: a smaller share for a group of callers that should never
// hold much of it.
func (b *Budget) SetShare(holder string, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.shares[holder] = min(max(n, 0), b.capacity)
}

// shareOf is holder's share; b.mu is held.
func (b *Budget) shareOf(holder string) int64 {
	if n, ok := b.shares[holder]; ok {
		return n
	}
	return b.share
}

// Capacity is the budget's size in bytes.
func (b *Budget) Capacity() int64 { return b.capacity }

// Take reserves n bytes for holder, waiting up to wait for room (less if
// ctx ends first), and returns the function that gives them back. A body
// larger than a holder's share takes the whole share. It returns ErrBusy,
// or ctx's error, when no room was found.
func (b *Budget) Take(ctx context.Context, holder string, n int64, wait time.Duration) (release func(), err error) {
	b.mu.Lock()
	share := b.shareOf(holder)
	b.mu.Unlock()
	n = min(max(n, 0), share)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		b.mu.Lock()
		if b.used+n <= b.capacity && b.byHolder[holder]+n <= share {
			b.used += n
			b.byHolder[holder] += n
			b.taken += n
			b.mu.Unlock()
			var once sync.Once
			return func() { once.Do(func() { b.giveBack(holder, n) }) }, nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-timer.C:
			return nil, ErrBusy
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// InUse is how many bytes are taken now.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

func (b *Budget) giveBack(holder string, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if b.byHolder[holder] -= n; b.byHolder[holder] == 0 {
		delete(b.byHolder, holder)
	}
	close(b.freed) // note: every waiter looks again; the first that fits wins
	b.freed = make(chan struct{})
	if b.used == 0 && b.taken >= returnAfter && !b.pending {
		b.pending = true
		time.AfterFunc(returnDelay, b.handBack)
	}
}

// handBack returns the memory of a burst to the OS, unless a new burst has
// begun meanwhile (its end will schedule the hand-back again).
func (b *Budget) handBack() {
	b.mu.Lock()
	b.pending = false
	idle := b.used == 0
	if idle {
		b.taken = 0
	}
	b.mu.Unlock()
	if idle {
		b.returnMemory()
	}
}
