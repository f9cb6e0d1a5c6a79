package enrichment_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// The review state says, per field and attribute, what the page draws:
// the outcome, whether it is pending and decidable now, and whether
// leaving it unapplied needs a reason; and of the revision, whether it is
// overdue or decidable.
func TestReviewStateOf(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	fresh, old := now.Add(-24*time.Hour), now.Add(-40*24*time.Hour)
	mixed := enrichment.Recorded{Status: enrichment.StatusPending, Proposed: []string{"name", "description", "attributes"},
		ProposedAttributes: []string{"color", "size"}, Superseded: []string{"description"}, SupersededAttributes: []string{"size"}}
	cases := []struct {
		name        string
		rec         enrichment.Recorded
		created     time.Time
		policy      enrichment.ReviewPolicy
		revision    string // decidable overdue ttlDays reasonRequired
		fields, att string // name:outcome:pending,decidable,reasonNeeded as P D R or -
	}{
		{name: "pending, mixed: superseded items are neither pending nor decidable", rec: mixed, created: fresh,
			policy:   enrichment.ReviewPolicy{TTLDays: 30, RequireReason: true},
			revision: "decidable ttl=30 reason",
			fields:   "name:pending:PDR description:superseded:--- attributes:pending:PDR", att: "color:pending:PDR size:superseded:---"},
		{name: "no reason required", rec: mixed, created: fresh, policy: enrichment.ReviewPolicy{TTLDays: 30},
			revision: "decidable ttl=30",
			fields:   "name:pending:PD- description:superseded:--- attributes:pending:PD-", att: "color:pending:PD- size:superseded:---"},
		{name: "overdue: pending, not decidable, no reason asked", rec: mixed, created: old,
			policy:   enrichment.ReviewPolicy{TTLDays: 30, RequireReason: true},
			revision: "overdue ttl=30",
			fields:   "name:pending:P-- description:superseded:--- attributes:pending:P--", att: "color:pending:P-- size:superseded:---"},
		{name: "no expiry: an old proposal stays decidable", rec: mixed, created: old, policy: enrichment.ReviewPolicy{},
			revision: "decidable ttl=0",
			fields:   "name:pending:PD- description:superseded:--- attributes:pending:PD-", att: "color:pending:PD- size:superseded:---"},
		{name: "accepted in part, corrected: nothing pending", created: old, policy: enrichment.ReviewPolicy{TTLDays: 30, RequireReason: true},
			rec: enrichment.Recorded{Status: enrichment.StatusAccepted, Proposed: []string{"name", "slug", "attributes"},
				ProposedAttributes: []string{"color", "size"}, Approved: []string{"name", "attributes"},
				ApprovedAttributes: []string{"color"}, Corrected: []string{"attributes.color"}},
			revision: "ttl=30",
			fields:   "name:applied:--- slug:not_applied:--- attributes:partly_applied:---",
			att:      "color:corrected:--- size:not_applied:---"},
		{name: "expired", created: old, policy: enrichment.ReviewPolicy{TTLDays: 30},
			rec:      enrichment.Recorded{Status: enrichment.StatusExpired, Proposed: []string{"name"}},
			revision: "ttl=30", fields: "name:expired:---"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := enrichment.ReviewStateOf(c.rec, c.created, c.policy, now)
			if s := revisionLine(got); s != c.revision {
				t.Errorf("revision: got %q, want %q", s, c.revision)
			}
			if s := itemsLine(got.Fields); s != c.fields {
				t.Errorf("fields: got %q, want %q", s, c.fields)
			}
			if s := itemsLine(got.Attributes); s != c.att {
				t.Errorf("attributes: got %q, want %q", s, c.att)
			}
		})
	}
}

func revisionLine(s enrichment.ReviewState) string {
	var out []string
	if s.Decidable {
		out = append(out, "decidable")
	}
	if s.Overdue {
		out = append(out, "overdue")
	}
	out = append(out, fmt.Sprintf("ttl=%d", s.TTLDays))
	if s.ReasonRequired {
		out = append(out, "reason")
	}
	return strings.Join(out, " ")
}

func itemsLine(items []enrichment.ItemState) string {
	flag := func(on bool, c string) string {
		if on {
			return c
		}
		return "-"
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Name + ":" + it.Outcome + ":" + flag(it.Pending, "P") + flag(it.Decidable, "D") + flag(it.ReasonNeeded, "R")
	}
	return strings.Join(out, " ")
}
