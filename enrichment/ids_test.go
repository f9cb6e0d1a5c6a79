package enrichment

import "testing"

func TestParseID(t *testing.T) {
	good := map[string]int64{"1": 1, "42": 42, "9007199254740991": MaxID}
	for s, want := range good {
		if got, err := ParseID(s); err != nil || got != want {
			t.Errorf("ParseID(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "0", "-1", "01", "+1", " 1", "1 ", "1.0", "1e3", "abc", "9007199254740992", "99999999999999999999"} {
		if got, err := ParseID(s); err == nil {
			t.Errorf("ParseID(%q) = %d, want an error", s, got)
		}
	}
}
