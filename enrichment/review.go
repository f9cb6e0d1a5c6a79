package enrichment

import (
	"encoding/json/jsontext"
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
	// proposed attributes a newer proposal replaced, by name; "attributes"
	// in Superseded stands for all of them
	SupersededAttributes []string
	// Options are the options of the product's attribute template, which a
	// corrected attribute is checked against as a submitted one is
	Options []CheckOption
}

// Decision is a reviewer's decision on a revision.
type Decision struct {
	Status         string   // the status asked for
	ApprovedFields []string // when accepting: the fields to apply; empty for all still pending
	Reason         string   // one of Reasons, or ""
	Comment        string
	// by field or "attributes.NAME", from the decision's JSON objects;
	// nil when absent (see ParseObject)
	Corrections  map[string]jsontext.Value // what to apply instead of the proposed value
	FieldReasons map[string]jsontext.Value // why a field or attribute is not applied
}

// Applied is what an accepting decision applies to the product.
type Applied struct {
	Fields     []string // in API order; "attributes" when any attribute is applied
	Attributes []string // the names of the applied attributes, in the order proposed
	// Values are the proposed values with the corrections in their place,
	// attributes only the applied ones: what to write to the product
	Values Fields
	// Corrections are the corrections as applied, nil when none
	Corrections Corrections
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

// Decide checks d against rev under policy at now. It returns what to
// apply to the product (nothing unless d accepts), and whether d decides
// anything (a pending revision saved as pending decides nothing). A broken
// rule is an *Error naming the field at fault.
func Decide(rev UnderReview, d Decision, policy ReviewPolicy, now time.Time) (Applied, bool, error) {
	applied, decided, err := decide(rev, d, policy, now)
	if err != nil {
		return Applied{}, false, err
	}
	return applied, decided, nil
}

func decide(rev UnderReview, d Decision, policy ReviewPolicy, now time.Time) (applied Applied, decided bool, err error) {
	if rev.Status != StatusPending {
		return applied, false, Invalid("status", "validation_decision_final",
			fmt.Sprintf("This revision was already %s; a decision is final.", rev.Status),
			"A revision that reached a final state cannot change.")
	}
	switch d.Status {
	case StatusPending:
		return applied, false, checkNoDecision(d)
	case StatusAccepted, StatusRejected:
	case StatusSuperseded, StatusExpired:
		return applied, false, Invalid("status", "validation_service_status",
			fmt.Sprintf("A revision becomes %s by the service only; a reviewer accepts or rejects it.", d.Status),
			"Must be accepted or rejected.")
	default:
		return applied, false, Invalid("status", "validation_invalid_status",
			"A revision can only be accepted or rejected.", "Must be accepted or rejected.")
	}
	if policy.Overdue(rev.Created, now) {
		return applied, false, Invalid("status", RuleRevisionExpired,
			fmt.Sprintf("This revision waited longer than %d days for review and has expired; it can no longer be decided.", policy.TTLDays),
			"The revision has expired.")
	}
	if err := checkReasonAndComment(d); err != nil {
		return applied, false, err
	}

	pending := PendingFields(rev.Proposed, rev.Superseded)
	pendingAttrs := PendingAttributes(rev.Proposed, rev.Superseded, rev.SupersededAttributes)
	if d.Status == StatusAccepted {
		if applied, err = approve(rev, pending, pendingAttrs, d.ApprovedFields); err != nil {
			return Applied{}, false, err
		}
	} else if len(d.ApprovedFields) > 0 {
		return applied, false, Invalid("approvedFields", "validation_not_accepted",
			"A rejected revision cannot have approved fields.", "Only an accepted revision has approved fields.")
	}
	if err := correct(rev.Proposed, rev.Options, &applied, d.Corrections); err != nil {
		return Applied{}, false, err
	}
	if err := checkFieldReasons(rev.Proposed, applied, d.FieldReasons); err != nil {
		return Applied{}, false, err
	}
	notApplied := len(applied.Fields) < len(pending) || len(applied.Attributes) < len(pendingAttrs)
	if err := checkReasonNeeded(d, notApplied, policy); err != nil {
		return Applied{}, false, err
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
	case d.Reason != "", d.Comment != "", d.Corrections != nil, d.FieldReasons != nil:
		field := "reason"
		switch {
		case d.Reason != "":
		case d.Comment != "":
			field = "comment"
		case d.Corrections != nil:
			field = "corrections"
		default:
			field = "fieldReasons"
		}
		return Invalid(field, "validation_no_decision",
			"A reason, a comment, corrections and reasons per field can only be given with a decision.", "Set status to accepted or rejected.")
	}
	return nil
}

// checkReasonNeeded applies the reason's rules: allowed only when something
// is not applied (a rejection, or an approval of only some of the pending
// fields or attributes), and then required when the policy says so, unless
// a field carries its own reason.
func checkReasonNeeded(d Decision, notApplied bool, policy ReviewPolicy) error {
	switch {
	case d.Reason != "" && !notApplied:
		return Invalid("reason", "validation_reason_not_allowed",
			"A reason can only be given when something is not applied: a rejection or a partial approval.",
			"Nothing is left unapplied.")
	case d.Reason == "" && len(d.FieldReasons) == 0 && notApplied && policy.RequireReason:
		return Invalid("reason", "validation_reason_required",
			"This organization requires a reason (or a reason per field in fieldReasons) when a proposal is rejected or only partly approved.",
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
// proposed and still pending, and returns what to apply: the approved
// fields and attributes ("attributes" approves every pending attribute,
// "attributes.NAME" one), or every pending one when none is named.
func approve(rev UnderReview, pending, pendingAttrs, approved []string) (Applied, error) {
	proposedAttrs := rev.Proposed.AttributeNames()
	var fields, attrs []string
	for _, key := range approved {
		field, attr, one := SplitKey(key)
		switch {
		case one && !slices.Contains(proposedAttrs, attr), !one && !rev.Proposed.Has(field):
			return Applied{}, Invalid("approvedFields", "validation_not_proposed",
				fmt.Sprintf("Approved field %q was not proposed.", key), fmt.Sprintf("%q was not proposed.", key))
		case one && !slices.Contains(pendingAttrs, attr), !one && !slices.Contains(pending, field),
			field == "attributes" && len(pendingAttrs) == 0:
			return Applied{}, Invalid("approvedFields", "validation_field_superseded",
				fmt.Sprintf("Approved field %q was superseded by a newer proposal of the same client; it cannot be approved.", key),
				fmt.Sprintf("%q was superseded.", key))
		case one:
			attrs = append(attrs, attr)
		case field == "attributes":
			attrs = append(attrs, pendingAttrs...)
		default:
			fields = append(fields, field)
		}
	}
	if len(approved) == 0 {
		fields, attrs = pending, pendingAttrs
	}
	out := Applied{}
	for _, name := range pendingAttrs { // in the order proposed, each once
		if slices.Contains(attrs, name) {
			out.Attributes = append(out.Attributes, name)
		}
	}
	for _, name := range pending {
		if slices.Contains(fields, name) && name != "attributes" || name == "attributes" && len(out.Attributes) > 0 {
			out.Fields = append(out.Fields, name)
		}
	}
	if len(out.Fields) == 0 {
		return Applied{}, Invalid("status", "validation_nothing_proposed",
			"This revision proposes no fields; it can only be rejected.", "Nothing to accept.")
	}
	out.Values = rev.Proposed.only(out.Fields, out.Attributes)
	return out, nil
}

// only is f with just the named fields, and of its attributes just those
// named attrs.
func (f Fields) only(fields, attrs []string) Fields {
	var out Fields
	for _, name := range fields {
		switch name {
		case "name":
			out.Name = f.Name
		case "slug":
			out.Slug = f.Slug
		case "description":
			out.Description = f.Description
		case "files":
			out.Files = f.Files
		case "attributes":
			var kept []StoredAttribute
			for _, a := range *f.Attributes {
				if slices.Contains(attrs, a.Attribute) {
					kept = append(kept, a)
				}
			}
			out.Attributes = &kept
		}
	}
	return out
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
