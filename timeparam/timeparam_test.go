package timeparam

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UTC()
	}
	good := []struct {
		in   string
		want time.Time
	}{
		{"0", time.UnixMilli(0).UTC()},
		{"1714564800000", utc("2024-05-01T12:00:00Z")},
		{"1714564800123", utc("2024-05-01T12:00:00.123Z")},
		{"2024-05-01T12:00:00Z", utc("2024-05-01T12:00:00Z")},
		{"2024-05-01t12:00:00z", utc("2024-05-01T12:00:00Z")},
		{"2024-05-01T12:00:00.250Z", utc("2024-05-01T12:00:00.25Z")},
		{"2024-05-01T14:00:00+02:00", utc("2024-05-01T12:00:00Z")},
		{"2024-05-01T07:30:00-0430", utc("2024-05-01T12:00:00Z")},
		{"2024-05-01T14:00:00+02", utc("2024-05-01T12:00:00Z")},
		{"2024-05-01T12:00Z", utc("2024-05-01T12:00:00Z")},
		{"2024-05-01T12:00:00", utc("2024-05-01T12:00:00Z")},
		{"2024-05-01T12:00:00.5", utc("2024-05-01T12:00:00.5Z")},
		{"2024-05-01T12:00", utc("2024-05-01T12:00:00Z")},
		{" 2024-05-01T12:00:00Z ", utc("2024-05-01T12:00:00Z")},
	}
	for _, c := range good {
		got, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if !got.Equal(c.want) || got.Location() != time.UTC {
			t.Errorf("Parse(%q) = %v, want %v in UTC", c.in, got, c.want)
		}
	}

	bad := []string{"", " ", "yesterday", "-1", "1.5", "1e12", "0x10", "2024-05-01",
		"2024-05-01 12:00:00", "2024-13-01T00:00:00Z", "2024-05-01T25:00:00Z",
		"2024-05-01T12:00:00+25:00", "2024-05-01T12:00:00 Z", "99999999999999999999",
		"253402300800000", "2024-05-01T12:00:00Zjunk", "12:00:00", "9999-12-31T23:59:59-01:00"}
	for _, in := range bad {
		if got, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", in, got)
		}
	}
}
