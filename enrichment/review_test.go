package enrichment

import (
	"slices"
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	text := func(s string) *string { return &s }
	nameAndDesc := Fields{Name: text("Runner"), Description: text("Light.")}
	pending := func(superseded ...string) UnderReview {
		return UnderReview{Status: StatusPending, Created: now.Add(-24 * time.Hour), Proposed: nameAndDesc, Superseded: superseded}
	}
	lenient, strict := ReviewPolicy{TTLDays: 90}, ReviewPolicy{TTLDays: 90, RequireReason: true}
	long := string(make([]rune, MaxCommentLength+1))

	cases := []struct {
		name     string
		rev      UnderReview
		d        Decision
		policy   ReviewPolicy
		applied  []string
		decided  bool
		field    string // of the refusal; "" when allowed
		wantRule string
	}{
		{name: "accept all", rev: pending(), d: Decision{Status: StatusAccepted}, policy: lenient,
			applied: []string{"name", "description"}, decided: true},
		{name: "accept all with a comment", rev: pending(), d: Decision{Status: StatusAccepted, Comment: "ok"}, policy: lenient,
			applied: []string{"name", "description"}, decided: true},
		{name: "accept some with a reason", rev: pending(), d: Decision{Status: StatusAccepted, ApprovedFields: []string{"description"}, Reason: "inaccurate"},
			policy: strict, applied: []string{"description"}, decided: true},
		{name: "accept all skips the superseded", rev: pending("name"), d: Decision{Status: StatusAccepted}, policy: strict,
			applied: []string{"description"}, decided: true},
		{name: "reject", rev: pending(), d: Decision{Status: StatusRejected, Reason: "off_brand"}, policy: strict, decided: true},
		{name: "reject without a reason where none is required", rev: pending(), d: Decision{Status: StatusRejected}, policy: lenient, decided: true},
		{name: "still pending decides nothing", rev: pending(), d: Decision{Status: StatusPending}, policy: strict},
		{name: "pending with approved fields", rev: pending(), d: Decision{Status: StatusPending, ApprovedFields: []string{"name"}},
			policy: lenient, field: "approvedFields", wantRule: "validation_not_accepted"},
		{name: "pending with a comment", rev: pending(), d: Decision{Status: StatusPending, Comment: "hm"},
			policy: lenient, field: "comment", wantRule: "validation_no_decision"},
		{name: "pending with a reason", rev: pending(), d: Decision{Status: StatusPending, Reason: "other"},
			policy: lenient, field: "reason", wantRule: "validation_no_decision"},
		{name: "a final revision", rev: UnderReview{Status: StatusRejected, Proposed: nameAndDesc}, d: Decision{Status: StatusAccepted},
			policy: lenient, field: "status", wantRule: "validation_decision_final"},
		{name: "superseded is the service's", rev: pending(), d: Decision{Status: StatusSuperseded},
			policy: lenient, field: "status", wantRule: "validation_service_status"},
		{name: "expired is the service's", rev: pending(), d: Decision{Status: StatusExpired},
			policy: lenient, field: "status", wantRule: "validation_service_status"},
		{name: "an unknown status", rev: pending(), d: Decision{Status: "maybe"},
			policy: lenient, field: "status", wantRule: "validation_invalid_status"},
		{name: "overdue", rev: UnderReview{Status: StatusPending, Created: now.Add(-91 * 24 * time.Hour), Proposed: nameAndDesc},
			d: Decision{Status: StatusAccepted}, policy: lenient, field: "status", wantRule: RuleRevisionExpired},
		{name: "never overdue with no TTL", rev: UnderReview{Status: StatusPending, Created: now.Add(-900 * 24 * time.Hour), Proposed: nameAndDesc},
			d: Decision{Status: StatusRejected}, policy: ReviewPolicy{}, decided: true},
		{name: "an unknown reason", rev: pending(), d: Decision{Status: StatusRejected, Reason: "ugly"},
			policy: lenient, field: "reason", wantRule: "validation_invalid_reason"},
		{name: "a comment too long", rev: pending(), d: Decision{Status: StatusRejected, Comment: long},
			policy: lenient, field: "comment", wantRule: "validation_comment_too_long"},
		{name: "approving what was not proposed", rev: pending(), d: Decision{Status: StatusAccepted, ApprovedFields: []string{"slug"}},
			policy: lenient, field: "approvedFields", wantRule: "validation_not_proposed"},
		{name: "approving a superseded field", rev: pending("name"), d: Decision{Status: StatusAccepted, ApprovedFields: []string{"name"}},
			policy: lenient, field: "approvedFields", wantRule: "validation_field_superseded"},
		{name: "rejecting with approved fields", rev: pending(), d: Decision{Status: StatusRejected, ApprovedFields: []string{"name"}},
			policy: lenient, field: "approvedFields", wantRule: "validation_not_accepted"},
		{name: "accepting a revision that proposes nothing", rev: UnderReview{Status: StatusPending, Created: now},
			d: Decision{Status: StatusAccepted}, policy: lenient, field: "status", wantRule: "validation_nothing_proposed"},
		{name: "a reason on a full acceptance", rev: pending(), d: Decision{Status: StatusAccepted, Reason: "other"},
			policy: lenient, field: "reason", wantRule: "validation_reason_not_allowed"},
		{name: "a rejection without the required reason", rev: pending(), d: Decision{Status: StatusRejected},
			policy: strict, field: "reason", wantRule: "validation_reason_required"},
		{name: "a partial approval without the required reason", rev: pending(), d: Decision{Status: StatusAccepted, ApprovedFields: []string{"name"}},
			policy: strict, field: "reason", wantRule: "validation_reason_required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			applied, decided, err := Decide(c.rev, c.d, c.policy, now)
			if c.wantRule != "" {
				rule, ok := AsError(err)
				if !ok || rule.Rule != c.wantRule || rule.Field != c.field || rule.Code != CodeInvalid {
					t.Fatalf("err = %v (%+v), want rule %s on %s", err, rule, c.wantRule, c.field)
				}
				if applied.Fields != nil || decided {
					t.Fatalf("a refusal applied %v, decided %v", applied, decided)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !slices.Equal(applied.Fields, c.applied) || decided != c.decided {
				t.Fatalf("applied %v, decided %v; want %v, %v", applied, decided, c.applied, c.decided)
			}
		})
	}
}
