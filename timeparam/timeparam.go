// Package timeparam reads the API's time parameters (modifiedSince, since,
// until): epoch milliseconds, an ISO-8601 instant with Z or an offset, or an
// ISO-8601 local date-time without zone, which is read as UTC.
package timeparam

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// ErrFormat is returned for a value in none of the accepted forms.
var ErrFormat = errors.New("expected epoch milliseconds or an ISO-8601 date-time, e.g. 2024-05-01T12:00:00Z")

// zoned and local are the accepted layouts; fractional seconds are accepted
// by Go's parser after the seconds field whatever the layout says.
var (
	zoned = []string{
		"2006-01-02T15:04:05Z07:00",
		"2006-01-02T15:04Z07:00",
		"2006-01-02T15:04:05Z0700",
		"2006-01-02T15:04Z0700",
		"2006-01-02T15:04:05Z07",
	}
	local = []string{
		"2006-01-02T15:04:05",
		"2006-01-02T15:04",
	}
)

// Parse reads one time parameter.
func Parse(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, ErrFormat
	}
	if isDigits(s) {
		ms, err := strconv.ParseInt(s, 10, 64)
		// note: beyond year 9999 the stored text dates stop comparing correctly
		if err != nil || ms > 253402300799999 {
			return time.Time{}, ErrFormat
		}
		return time.UnixMilli(ms).UTC(), nil
	}
	if len(s) < len("2006-01-02T15:04") || (s[10] != 'T' && s[10] != 't') {
		return time.Time{}, ErrFormat
	}
	s = s[:10] + "T" + s[11:]
	for _, layout := range zoned {
		if t, err := time.Parse(layout, strings.Replace(s, "z", "Z", 1)); err == nil {
			// note: an offset can carry 9999-12-31 into year 10000, which
			// stored dates (four-digit text) cannot be compared with
			if t.UTC().Year() > 9999 {
				return time.Time{}, ErrFormat
			}
			return t.UTC(), nil
		}
	}
	for _, layout := range local {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, ErrFormat
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
