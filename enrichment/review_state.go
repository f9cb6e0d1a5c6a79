package enrichment

import "time"

// The review state of a revision: what the reviewers' page shows and lets
// a reviewer do with each proposed field and attribute. The server owns
// these rules (outcomes, expiry, reasons); the page draws what it is given.

// ReviewState is a revision as its reviewers' page draws it.
type ReviewState struct {
	// Decidable: the revision is pending and not overdue, so a reviewer may
	// accept or reject it now
	Decidable bool `json:"decidable"`
	// Overdue: pending, but it waited longer than the organization allows;
	// the first decision tried expires it
	Overdue bool `json:"overdue"`
	// TTLDays is how long the organization lets a proposal wait (0: forever)
	TTLDays int `json:"ttlDays"`
	// ReasonRequired: a decision that leaves any pending field or attribute
	// unapplied (a rejection, a partial approval) needs a reason, or a
	// reason per field
	ReasonRequired bool `json:"reasonRequired"`
	// Fields in API order, Attributes in the order proposed
	Fields     []ItemState `json:"fields"`
	Attributes []ItemState `json:"attributes"`
	// Reviewer names who decided the revision, RevertedBy who rolled it
	// back, for people ("reviewer:EMAIL", "superuser:EMAIL", "policy",
	// "system"): the revision's own fields hold record ids, which a
	// reviewer cannot look up among superusers
	Reviewer   string `json:"reviewer,omitempty"`
	RevertedBy string `json:"revertedBy,omitempty"`
}

// ItemState is one proposed field or attribute as the page draws it.
type ItemState struct {
	Name    string `json:"name"`    // a field's name, or an attribute's
	Outcome string `json:"outcome"` // one of the Outcome* values (Outcomes)
	// Pending: it still awaits a decision (its revision is pending and no
	// newer proposal superseded it)
	Pending bool `json:"pending"`
	// Decidable: pending, and a decision can be made now
	Decidable bool `json:"decidable"`
	// ReasonNeeded: leaving it unapplied needs a reason (the decision's or
	// its own in fieldReasons)
	ReasonNeeded bool `json:"reasonNeeded"`
}

// ReviewStateOf is the review state of revision r, submitted at created,
// under its organization's policy at now.
func ReviewStateOf(r Recorded, created time.Time, policy ReviewPolicy, now time.Time) ReviewState {
	pending := r.Status == StatusPending
	overdue := pending && policy.Overdue(created, now)
	decidable := pending && !overdue
	fields, attributes := Outcomes(r)
	return ReviewState{
		Decidable: decidable, Overdue: overdue, TTLDays: policy.TTLDays,
		ReasonRequired: decidable && policy.RequireReason,
		Fields:         itemStates(fields, decidable, policy),
		Attributes:     itemStates(attributes, decidable, policy),
	}
}

// itemStates reads outcomes as item states: an item is pending while its
// outcome is, decidable when its revision is too.
func itemStates(outcomes FieldOutcomes, decidable bool, policy ReviewPolicy) []ItemState {
	out := make([]ItemState, len(outcomes))
	for i, o := range outcomes {
		pending := o.Outcome == OutcomePending
		out[i] = ItemState{Name: o.Field, Outcome: o.Outcome, Pending: pending,
			Decidable: pending && decidable, ReasonNeeded: pending && decidable && policy.RequireReason}
	}
	return out
}
