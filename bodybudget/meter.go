package bodybudget

import (
	"context"
	"errors"
	"io"
	"sync"
)

// ErrTooLarge is the error of a metered body that runs past its most.
var ErrTooLarge = errors.New("request body too large")

// Meter reads a body while charging to a holder only the bytes read so far,
// not the size the request announced: a caller that announces a large body
// and sends nothing holds nothing. The first free bytes are not charged
// (the budget's small bodies); past them, bytes are taken step bytes at a
// time, without waiting. A read past most bytes, or one that finds no room
// in the budget, fails. Release gives back everything taken.
type Meter struct {
	body   io.Reader
	budget *Budget
	holder string
	free   int64
	most   int64

	mu       sync.Mutex
	read     int64
	charged  int64
	releases []func()
	err      error // sticky
}

// meterStep is how many bytes a meter takes from the budget at a time.
const meterStep = 64 << 10

// Meter returns a reader of body that charges holder as it reads.
func (b *Budget) Meter(body io.Reader, holder string, free, most int64) *Meter {
	return &Meter{body: body, budget: b, holder: holder, free: free, most: most}
}

// Read reads from the body, charging what it read.
func (m *Meter) Read(p []byte) (int, error) {
	m.mu.Lock()
	if m.err != nil {
		m.mu.Unlock()
		return 0, m.err
	}
	if left := m.most - m.read + 1; int64(len(p)) > left {
		p = p[:left] // note: one byte past the most is enough to know
	}
	m.mu.Unlock()
	n, err := m.body.Read(p) // note: not under the lock, as it may wait for the client
	m.mu.Lock()
	defer m.mu.Unlock()
	m.read += int64(n)
	if m.read > m.most {
		m.err = ErrTooLarge
		return n, m.err
	}
	if over := m.read - m.free - m.charged; over > 0 {
		step := (over + meterStep - 1) / meterStep * meterStep
		release, takeErr := m.budget.Take(context.Background(), m.holder, step, 0)
		if takeErr != nil {
			m.err = takeErr
			return n, m.err
		}
		m.charged += step
		m.releases = append(m.releases, release)
	}
	return n, err
}

// Charged is how many bytes the meter holds in the budget now.
func (m *Meter) Charged() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.charged
}

// Release gives back every byte the meter took; reads after it fail.
func (m *Meter) Release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.releases {
		r()
	}
	m.releases, m.charged = nil, 0
	if m.err == nil {
		m.err = io.ErrClosedPipe
	}
}
