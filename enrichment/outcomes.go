package enrichment

import "slices"

// States of a revision's fields and attributes, as GET /revisions and
// webhook payloads report them, from what the revision recorded.

// Further outcomes of decisions per field and attribute.
const (
	OutcomeCorrected     = "corrected"      // applied with the reviewer's correction instead of the proposed value
	OutcomePartlyApplied = "partly_applied" // attributes: some proposed attributes were applied, not all
	OutcomeReverted      = "reverted"       // applied, then restored to the value before by a rollback
)

// Recorded is what a revision recorded about its proposal and its fate.
// Revisions stored before single attributes were decided have no attribute
// lists: there "attributes" in Approved, Superseded or Overwritten stands
// for every proposed attribute.
type Recorded struct {
	Status                string
	Proposed              []string // proposed fields, in API order
	ProposedAttributes    []string // names of the proposed attributes, in the order proposed
	Approved              []string // applied fields; empty on an acceptance: every proposed field
	ApprovedAttributes    []string // names of the applied attributes; empty: see above
	Superseded            []string
	SupersededAttributes  []string
	Overwritten           []string
	OverwrittenAttributes []string
	Corrected             []string // corrected keys: fields and "attributes.NAME"
	// of a reverted revision: the fields and the attributes' names whose
	// value the rollback restored (the others it applied stay applied)
	Reverted           []string
	RevertedAttributes []string
}

// applied reports whether the revision's acceptance applied what it
// applied: accepted, or accepted and then reverted.
func (r Recorded) applied() bool {
	return r.Status == StatusAccepted || r.Status == StatusReverted
}

// Outcomes is what became of each proposed field (in API order) and of each
// proposed attribute (in the order proposed).
func Outcomes(r Recorded) (fields, attributes FieldOutcomes) {
	fields, attributes = FieldOutcomes{}, FieldOutcomes{}
	applied, reverted := 0, 0
	overwritten := false
	for _, name := range r.ProposedAttributes {
		o := r.attributeOutcome(name)
		switch o {
		case OutcomeApplied, OutcomeCorrected, OutcomeOverwritten:
			applied++
		case OutcomeReverted:
			reverted++
		}
		overwritten = overwritten || o == OutcomeOverwritten
		attributes = append(attributes, FieldOutcome{Field: name, Outcome: o})
	}
	for _, name := range r.Proposed {
		o := r.fieldOutcome(name)
		if name == "attributes" && r.applied() && o != OutcomeSuperseded && len(r.ProposedAttributes) > 0 {
			o = attributesOutcome(attributes, applied, overwritten)
			if reverted > 0 && applied == 0 { // every attribute it applied was restored
				o = OutcomeReverted
			}
		}
		fields = append(fields, FieldOutcome{Field: name, Outcome: o})
	}
	return fields, attributes
}

// attributesOutcome is the attributes field's state on an acceptance:
// applied when every proposed attribute was applied or corrected
// (overwritten when an import replaced one since), not_applied when none
// was, partly_applied otherwise: a superseded attribute is one not applied.
func attributesOutcome(attributes FieldOutcomes, applied int, overwritten bool) string {
	switch {
	case applied == 0:
		return OutcomeNotApplied
	case applied < len(attributes):
		return OutcomePartlyApplied
	case overwritten:
		return OutcomeOverwritten
	}
	return OutcomeApplied
}

// fieldOutcome is what became of one proposed field.
func (r Recorded) fieldOutcome(name string) string {
	switch {
	case slices.Contains(r.Superseded, name):
		return OutcomeSuperseded
	case r.applied() && (len(r.Approved) == 0 || slices.Contains(r.Approved, name)):
		switch {
		case slices.Contains(r.Reverted, name):
			return OutcomeReverted
		case slices.Contains(r.Overwritten, name): // by a later catalog import
			return OutcomeOverwritten
		case slices.Contains(r.Corrected, name):
			return OutcomeCorrected
		}
		return OutcomeApplied
	}
	return r.closedOutcome()
}

// attributeOutcome is what became of one proposed attribute.
func (r Recorded) attributeOutcome(name string) string {
	switch {
	case slices.Contains(r.Superseded, "attributes"), slices.Contains(r.SupersededAttributes, name):
		return OutcomeSuperseded
	case r.applied() && r.attributeApplied(name):
		switch {
		case slices.Contains(r.RevertedAttributes, name):
			return OutcomeReverted
		case len(r.OverwrittenAttributes) == 0 && slices.Contains(r.Overwritten, "attributes"),
			slices.Contains(r.OverwrittenAttributes, name):
			return OutcomeOverwritten
		case slices.Contains(r.Corrected, AttributeKey(name)):
			return OutcomeCorrected
		}
		return OutcomeApplied
	}
	return r.closedOutcome()
}

// attributeApplied reports whether an acceptance applied the attribute.
func (r Recorded) attributeApplied(name string) bool {
	if len(r.ApprovedAttributes) > 0 {
		return slices.Contains(r.ApprovedAttributes, name)
	}
	return len(r.Approved) == 0 || slices.Contains(r.Approved, "attributes")
}

// closedOutcome is the state of whatever the revision did not apply.
func (r Recorded) closedOutcome() string {
	switch r.Status {
	case StatusAccepted, StatusRejected, StatusReverted:
		return OutcomeNotApplied
	case StatusExpired:
		return OutcomeExpired
	case StatusSuperseded:
		return OutcomeSuperseded
	}
	return OutcomePending
}

// AppliedFields are the fields an accepted revision applied, in API order:
// the approved ones, or every proposed one when none was named; none
// unless the revision is accepted.
func (r Recorded) AppliedFields() []string {
	out := []string{}
	if r.Status != StatusAccepted {
		return out
	}
	for _, name := range r.Proposed {
		if len(r.Approved) == 0 || slices.Contains(r.Approved, name) {
			out = append(out, name)
		}
	}
	return out
}
