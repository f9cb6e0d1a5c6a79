package bodybudget

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// readN reads exactly n bytes through m.
func readN(t *testing.T, m *Meter, n int64) {
	t.Helper()
	if _, err := io.CopyN(io.Discard, m, n); err != nil {
		t.Fatalf("read %d: %v", n, err)
	}
}

// TestMeterChargesWhatWasRead: a metered body holds nothing until it is
// read past its free bytes, then what was read (in steps), never what was
// announced; past its most it fails; a group's share bounds every meter of
// that holder together; Release gives it all back.
func TestMeterChargesWhatWasRead(t *testing.T) {
	const free, most = 64 << 10, 1 << 20
	b := New(64 << 20)
	b.SetShare("anonymous", 256<<10)
	body := strings.NewReader(strings.Repeat("x", 2<<20))

	m := b.Meter(body, "anonymous", free, most)
	if b.InUse() != 0 {
		t.Fatalf("in use %d before a byte was read", b.InUse())
	}
	readN(t, m, free)
	if b.InUse() != 0 || m.Charged() != 0 {
		t.Fatalf("in use %d after the free bytes", b.InUse())
	}
	readN(t, m, 1)
	if b.InUse() != meterStep || m.Charged() != meterStep {
		t.Fatalf("in use %d after one byte past the free ones, want %d", b.InUse(), meterStep)
	}
	readN(t, m, meterStep)
	if b.InUse() != 2*meterStep {
		t.Fatalf("in use %d after a step more, want %d", b.InUse(), 2*meterStep)
	}

	// a second body of the same holder: the group's share (256 KiB) runs out
	other := b.Meter(strings.NewReader(strings.Repeat("y", 1<<20)), "anonymous", free, most)
	_, err := io.Copy(io.Discard, other)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("a second body past the group's share: %v, want ErrBusy", err)
	}
	if b.InUse() != 256<<10 {
		t.Fatalf("in use %d with the group's share taken, want %d", b.InUse(), 256<<10)
	}
	other.Release()
	if b.InUse() != 2*meterStep {
		t.Fatalf("in use %d after the second body's release, want %d", b.InUse(), 2*meterStep)
	}

	// past the most
	big := b.Meter(strings.NewReader(strings.Repeat("z", most+1)), "address 1", free, most)
	if _, err = io.Copy(io.Discard, big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a body past its most: %v, want ErrTooLarge", err)
	}
	big.Release()
	m.Release()
	m.Release() // a second release gives nothing back twice
	if _, err := m.Read(make([]byte, 1)); err == nil {
		t.Error("a read after Release succeeded")
	}
	if got := b.InUse(); got != 0 {
		t.Fatalf("in use %d after every release", got)
	}
}
