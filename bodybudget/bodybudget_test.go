package bodybudget

import (
	"context"
	"errors"
	"testing"
	"time"
)

const (
	short = 20 * time.Millisecond // a wait meant to run out
	long  = 10 * time.Second      // a wait meant to end by a release
)

func take(t *testing.T, b *Budget, holder string, n int64) func() {
	t.Helper()
	release, err := b.Take(context.Background(), holder, n, short)
	if err != nil {
		t.Fatalf("take %d for %s with %d in use: %v", n, holder, b.InUse(), err)
	}
	return release
}

func refused(t *testing.T, b *Budget, holder string, n int64) {
	t.Helper()
	if _, err := b.Take(context.Background(), holder, n, short); !errors.Is(err, ErrBusy) {
		t.Fatalf("take %d for %s with %d in use: %v, want ErrBusy", n, holder, b.InUse(), err)
	}
}

func TestBudgetBoundsBytesInFlight(t *testing.T) {
	b := New(100)
	a1 := take(t, b, "a", 30)
	b1 := take(t, b, "b", 50)
	refused(t, b, "c", 21) // 80 in use
	c1 := take(t, b, "c", 20)
	refused(t, b, "d", 1)
	a1()
	a1() // a second release gives nothing back twice
	if got := b.InUse(); got != 70 {
		t.Fatalf("in use %d after one release, want 70", got)
	}
	d1 := take(t, b, "d", 30)
	for _, r := range []func(){b1, c1, d1} {
		r()
	}
	if got := b.InUse(); got != 0 {
		t.Fatalf("in use %d after every release", got)
	}
}

func TestBudgetHolderTakesAtMostHalf(t *testing.T) {
	b := New(100)
	a1 := take(t, b, "a", 40)
	refused(t, b, "a", 11) // a's share is 50, though 60 are free
	other := take(t, b, "b", 50)
	a1()
	other()
	// a body larger than a share takes the whole share, when it is free
	big := take(t, b, "a", 1000)
	if got := b.InUse(); got != 50 {
		t.Fatalf("a body over the share took %d, want 50", got)
	}
	big()
}

func TestBudgetWaiterGetsInWhenRoomIsFreed(t *testing.T) {
	b := New(100)
	first := take(t, b, "a", 50)
	second := take(t, b, "b", 50)
	got := make(chan error, 1)
	go func() {
		release, err := b.Take(context.Background(), "c", 40, long)
		if err == nil {
			release()
		}
		got <- err
	}()
	first()
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}
	second()
}

func TestBudgetWaitEndsWithTheRequest(t *testing.T) {
	b := New(100)
	full := take(t, b, "a", 50)
	defer full()
	other := take(t, b, "b", 50)
	defer other()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Take(ctx, "c", 1, long); !errors.Is(err, context.Canceled) {
		t.Fatalf("take with a cancelled request: %v", err)
	}
}

func TestBudgetHandsMemoryBackAfterABurst(t *testing.T) {
	b := New(1 << 30)
	returned := make(chan struct{}, 4)
	b.returnMemory = func() { returned <- struct{}{} }

	small := take(t, b, "a", 1<<20)
	small()
	select {
	case <-returned:
		t.Fatal("memory handed back after a small body")
	case <-time.After(3 * returnDelay):
	}

	burst := []func(){take(t, b, "a", 20<<20), take(t, b, "b", 20<<20)}
	burst[0]()
	select {
	case <-returned:
		t.Fatal("memory handed back while a body was still in flight")
	case <-time.After(3 * returnDelay):
	}
	burst[1]()
	select {
	case <-returned:
	case <-time.After(long):
		t.Fatal("memory not handed back after the burst")
	}
}
