package enrichment

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The review decision as rules of values: what a reviewer's decision may do
// to a revision. The store reads the revision and its organization's policy,
// calls Decide, and writes what it returns (store/review.go); docs/review.md
// says the same in words.

// UnderReview is what a decision needs of a stored revision.
type UnderReview struct {
	Status     string
	Created    time.Time
	Proposed   Fields
	Superseded []string // proposed fields a newer proposal of the same client replaced
}

// Decision is a reviewer's decision on a revision.
type Decision struct {
	Status         string   // the status asked for
	ApprovedFields []string // when accepting: the fields to apply; empty for all still pending
	Reason         string   // one of Reasons, or ""
	Comment        string
}

// ReviewPolicy is what an organization decided about its review.
type ReviewPolicy struct {
	TTLDays       int  // 0: proposals never expire
	RequireReason bool // a rejection or partial approval needs a reason
}

// Overdue reports whether a revision submitted at created has waited longer
// than the policy allows at now.
func (p ReviewPolicy) Overdue(created, now time.Time) bool {
	return p.TTLDays > 0 && created.Before(now.Add(-time.Duration(p.TTLDays)*24*time.Hour))
}

// RuleRevisionExpired names the refusal of a decision on a revision that
// waited longer than its organization allows: the caller expires it then,
// in a transaction of its own (the decision's is rolled back).
const RuleRevisionExpired = "validation_revision_expired"

// Decide checks d against rev under policy at now. It returns the fields to
// apply to the product, in API order (nil unless d accepts), and whether d
// decides anything (a pending revision saved as pending decides nothing). A
// broken rule is an *Error naming the field at fault.
func Decide(rev UnderReview, d Decision, policy ReviewPolicy, now time.Time) (applied []string, decided bool, err error) {
	if rev.Status != StatusPending {
		return nil, false, Invalid("status", "validation_decision_final",
			fmt.Sprintf("This revision was already %s; a decision is final.", rev.Status),
			"A revision that reached a final state cannot change.")
	}
	switch d.Status {
	case StatusPending:
		return nil, false, checkNoDecision(d)
	case StatusAccepted, StatusRejected:
	case StatusSuperseded, StatusExpired:
		return nil, false, Invalid("status", "validation_service_status",
			fmt.Sprintf("A revision becomes %s by the service only; a reviewer accepts or rejects it.", d.Status),
			"Must be accepted or rejected.")
	default:
		return nil, false, Invalid("status", "validation_invalid_status",
			"A revision can only be accepted or rejected.", "Must be accepted or rejected.")
	}
	if policy.Overdue(rev.Created, now) {
		return nil, false, Invalid("status", RuleRevisionExpired,
			fmt.Sprintf("This revision waited longer than %d days for review and has expired; it can no longer be decided.", policy.TTLDays),
			"The revision has expired.")
	}
	if err := checkReasonAndComment(d); err != nil {
		return nil, false, err
	}

	pending := PendingFields(rev.Proposed, rev.Superseded)
	if d.Status == StatusAccepted {
		if applied, err = approve(rev.Proposed, pending, d.ApprovedFields); err != nil {
			return nil, false, err
		}
	} else if len(d.ApprovedFields) > 0 {
		return nil, false, Invalid("approvedFields", "validation_not_accepted",
			"A rejected revision cannot have approved fields.", "Only an accepted revision has approved fields.")
	}
	if err := checkReasonNeeded(d, len(applied) < len(pending), policy); err != nil {
		return nil, false, err
	}
	return applied, true, nil
}

// checkNoDecision refuses the decision's other fields on a revision saved
// as still pending.
func checkNoDecision(d Decision) error {
	switch {
	case len(d.ApprovedFields) > 0:
		return Invalid("approvedFields", "validation_not_accepted",
			"Approved fields can only be given when accepting a revision.", "Only an accepted revision has approved fields.")
	case d.Reason != "", d.Comment != "":
		field := "reason"
		if d.Reason == "" {
			field = "comment"
		}
		return Invalid(field, "validation_no_decision",
			"A reason and a comment can only be given with a decision.", "Set status to accepted or rejected.")
	}
	return nil
}

// checkReasonNeeded applies the reason's rules: allowed only when something
// is not applied (a rejection, or an approval of only some of the pending
// fields), and then required when the policy says so.
func checkReasonNeeded(d Decision, notApplied bool, policy ReviewPolicy) error {
	switch {
	case d.Reason != "" && !notApplied:
		return Invalid("reason", "validation_reason_not_allowed",
			"A reason can only be given when something is not applied: a rejection or a partial approval.",
			"Nothing is left unapplied.")
	case d.Reason == "" && notApplied && policy.RequireReason:
		return Invalid("reason", "validation_reason_required",
			"This organization requires a reason when a proposal is rejected or only partly approved.",
			"Must be one of "+strings.Join(Reasons, ", ")+".")
	}
	return nil
}

// PendingFields are the proposed fields that no newer proposal superseded,
// in API order.
func PendingFields(proposed Fields, superseded []string) []string {
	var out []string
	for _, name := range proposed.Names() {
		if !slices.Contains(superseded, name) {
			out = append(out, name)
		}
	}
	return out
}

// approve checks the approved fields of an acceptance against what is
// proposed and still pending, and returns the fields to apply: the approved
// ones, or every pending one when none is named.
func approve(proposed Fields, pending, approved []string) ([]string, error) {
	for _, name := range approved {
		switch {
		case !proposed.Has(name):
			return nil, Invalid("approvedFields", "validation_not_proposed",
				fmt.Sprintf("Approved field %q was not proposed.", name), fmt.Sprintf("%q was not proposed.", name))
		case !slices.Contains(pending, name):
			return nil, Invalid("approvedFields", "validation_field_superseded",
				fmt.Sprintf("Approved field %q was superseded by a newer proposal of the same client; it cannot be approved.", name),
				fmt.Sprintf("%q was superseded.", name))
		}
	}
	var applied []string
	for _, name := range pending {
		if len(approved) == 0 || slices.Contains(approved, name) {
			applied = append(applied, name)
		}
	}
	if len(applied) == 0 {
		return nil, Invalid("status", "validation_nothing_proposed",
			"This revision proposes no fields; it can only be rejected.", "Nothing to accept.")
	}
	return applied, nil
}

// checkReasonAndComment checks the values of a decision's reason and comment.
func checkReasonAndComment(d Decision) error {
	if d.Reason != "" && !slices.Contains(Reasons, d.Reason) {
		return Invalid("reason", "validation_invalid_reason",
			"A reason must be one of "+strings.Join(Reasons, ", ")+".",
			"Must be one of "+strings.Join(Reasons, ", ")+".")
	}
	if n := utf8.RuneCountInString(d.Comment); n > MaxCommentLength {
		return Invalid("comment", "validation_comment_too_long",
			fmt.Sprintf("A comment may have at most %d characters; this one has %d.", MaxCommentLength, n),
			fmt.Sprintf("Must be at most %d characters.", MaxCommentLength))
	}
	return nil
}
