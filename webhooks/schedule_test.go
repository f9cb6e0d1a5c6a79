package webhooks

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSchedule(t *testing.T) {
	const m, h = time.Minute, time.Hour
	for _, c := range []struct {
		first string
		want  []time.Duration
	}{
		{"", []time.Duration{5 * time.Second, 30 * time.Second, 2 * m, 10 * m, h, 6 * h, 12 * h}},
		{"5s", []time.Duration{5 * time.Second, 30 * time.Second, 2 * m, 10 * m, h, 6 * h, 12 * h}},
		// the e2e tests' scale: every delay keeps its proportion to the first
		{"100ms", []time.Duration{100 * time.Millisecond, 600 * time.Millisecond, 2400 * time.Millisecond, 12 * time.Second,
			72 * time.Second, 432 * time.Second, 864 * time.Second}},
		{"1m", []time.Duration{m, 6 * m, 24 * m, 2 * h, 12 * h, 72 * h, 144 * h}},
	} {
		got, err := schedule(c.first)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("schedule(%q) = %v, %v; want %v", c.first, got, err, c.want)
		}
	}
	for _, bad := range []string{"0", "0s", "-1s", "5", "soon", "5 s"} {
		if got, err := schedule(bad); err == nil || !strings.Contains(err.Error(), BackoffEnv) {
			t.Errorf("schedule(%q) = %v, %v; want an error naming %s", bad, got, err, BackoffEnv)
		}
	}
	// scaling makes a copy: the default table stays as it is
	if _, err := schedule("1s"); err != nil || retryDelays[0] != 5*time.Second {
		t.Errorf("after scaling, the default starts at %s (%v)", retryDelays[0], err)
	}
}

func TestRetryIn(t *testing.T) {
	delays := []time.Duration{10 * time.Second, time.Minute, time.Hour}
	for _, c := range []struct {
		name     string
		attempts int
		jitter   float64
		want     time.Duration
		retry    bool
	}{
		{"the first attempt failed: the first delay", 0, 0.5, 10 * time.Second, true},
		{"the least jitter is 10% sooner", 0, 0, 9 * time.Second, true},
		{"the most jitter is almost 10% later", 0, 0.999, 10*time.Second + 998*time.Millisecond, true},
		{"the second attempt failed: the second delay", 1, 0.5, time.Minute, true},
		{"the last retry", 2, 0.5, time.Hour, true},
		{"the schedule is spent: the delivery has failed", 3, 0.5, 0, false},
		{"long after", 40, 0.5, 0, false},
	} {
		if got, retry := retryIn(delays, c.attempts, c.jitter); got != c.want || retry != c.retry {
			t.Errorf("%s: retryIn(%d, %v) = %s, %v; want %s, %v", c.name, c.attempts, c.jitter, got, retry, c.want, c.retry)
		}
	}
	// with the default schedule: 7 retries, so 8 attempts in all
	if _, retry := retryIn(retryDelays, 6, 0.5); !retry {
		t.Error("the 7th failed attempt is not retried")
	}
	if _, retry := retryIn(retryDelays, 7, 0.5); retry {
		t.Error("the 8th failed attempt is retried")
	}
}
