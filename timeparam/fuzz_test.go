package timeparam

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzParse feeds Parse arbitrary text (seeds in testdata/fuzz/FuzzParse).
// It never panics; a refusal is ErrFormat; an accepted time is UTC and reads
// back the same from its ISO-8601 forms, and from its epoch milliseconds
// within the epoch form's range.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrFormat) || !got.IsZero() {
				t.Fatalf("Parse(%q) = %v, %v; want the zero time and ErrFormat", s, got, err)
			}
			return
		}
		if got.Location() != time.UTC {
			t.Fatalf("Parse(%q) = %v, not in UTC", s, got)
		}
		if trimmed := strings.TrimSpace(s); isDigits(trimmed) {
			ms, _ := strconv.ParseInt(trimmed, 10, 64)
			if !got.Equal(time.UnixMilli(ms)) {
				t.Fatalf("Parse(%q) = %v, want epoch millis %d", s, got, ms)
			}
		}
		if got.Year() < 0 {
			// note: 0000-01-01T00:00:00+01:00 is in year -1, which no
			// ISO-8601 form here can write back; it compares before every
			// stored time, as it should
			return
		}
		if got.Year() > 9999 {
			// stored text dates cannot be compared with years past 9999
			t.Fatalf("Parse(%q) = %v: past year 9999", s, got)
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05.999999999-07:00"} {
			text := got.Format(layout)
			back, err := Parse(text)
			if err != nil || !back.Equal(got) {
				t.Fatalf("Parse(%q) = %v, but its form %q reads as %v, %v", s, got, text, back, err)
			}
		}
		if ms := got.UnixMilli(); ms >= 0 {
			back, err := Parse(strconv.FormatInt(ms, 10))
			if err != nil || !back.Equal(got.Truncate(time.Millisecond)) {
				t.Fatalf("Parse(%q) = %v, but its epoch millis %d read as %v, %v", s, got, ms, back, err)
			}
		}
		if again, err := Parse(" \t" + s + "\n"); err != nil || !again.Equal(got) {
			t.Fatalf("Parse(%q) = %v, but with blanks around %v, %v", s, got, again, err)
		}
	})
}
