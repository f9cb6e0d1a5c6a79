package enrichment

import (
	"fmt"
	"slices"
	"strings"
)

// Trust policies as rules of values (docs/review.md): a policy's ranges and
// which revisions it may accept. When its measured record earns automatic
// acceptance and when its audits withdraw it are in trust_statistics.go,
// the probation of model versions in probation.go. The store measures and
// reads; these functions decide.

// Trust policy states; the service alone sets them.
const (
	PolicyLearning  = "learning"  // measuring, or disabled: accepts nothing
	PolicyActive    = "active"    // accepts the revisions that qualify
	PolicySuspended = "suspended" // its audits failed: accepts nothing until disabled and enabled again
)

// PolicyStates lists every trust policy state.
var PolicyStates = []string{PolicyLearning, PolicyActive, PolicySuspended}

// Who decided a revision (the revision's decidedBy).
const (
	DecidedByReviewer = "reviewer" // a person, through any API or the dashboard
	DecidedByPolicy   = "policy"   // a trust policy, named by the revision's policy
)

// DecidedByValues lists every value of decidedBy.
var DecidedByValues = []string{DecidedByReviewer, DecidedByPolicy}

// Audit states of a revision a policy accepted (the revision's audit).
const (
	AuditPending   = "pending"   // drawn for audit, waiting for a reviewer
	AuditConfirmed = "confirmed" // a reviewer agreed with the policy
	AuditReverted  = "reverted"  // a reviewer rolled the revision back
)

// AuditStates lists every audit state.
var AuditStates = []string{AuditPending, AuditConfirmed, AuditReverted}

// Trust policy ranges and defaults, and the measurement's and audits' spans.
const (
	MinTargetPrecision     = 0.5
	DefaultTargetPrecision = 0.95
	MinMinReviewed         = 20
	DefaultMinReviewed     = 200
	MinAuditRate           = 0.01
	DefaultAuditRate       = 0.05
	MaxMinConfidence       = 100
	// MeasureDays is how far back a policy's measurement reaches.
	MeasureDays = 90
)

// TrustPolicy is what the rules need of a stored policy.
type TrustPolicy struct {
	Fields          []string
	MinConfidence   int
	TargetPrecision float64
	MinReviewed     int
	AuditRate       float64
	Enabled         bool
	State           string
}

// PolicyProblem is one field of a policy outside its range.
type PolicyProblem struct{ Field, Message string }

// Check lists the fields of p outside their ranges, in the collection's
// field order; none when p may be stored.
func (p TrustPolicy) Check() []PolicyProblem {
	var out []PolicyProblem
	if len(p.Fields) == 0 {
		out = append(out, PolicyProblem{"fields", "Must name at least one of " + strings.Join(EnrichableFields, ", ") + "."})
	}
	for _, f := range p.Fields {
		if !slices.Contains(EnrichableFields, f) {
			out = append(out, PolicyProblem{"fields", fmt.Sprintf("%q is not one of %s.", f, strings.Join(EnrichableFields, ", "))})
			break
		}
	}
	if p.MinConfidence < 0 || p.MinConfidence > MaxMinConfidence {
		out = append(out, PolicyProblem{"minConfidence", fmt.Sprintf("Must be a whole number from 0 to %d.", MaxMinConfidence)})
	}
	if p.TargetPrecision < MinTargetPrecision || p.TargetPrecision > 1 {
		out = append(out, PolicyProblem{"targetPrecision", fmt.Sprintf("Must be from %g to 1.", MinTargetPrecision)})
	}
	if p.MinReviewed < MinMinReviewed {
		out = append(out, PolicyProblem{"minReviewed", fmt.Sprintf("Must be a whole number of at least %d.", MinMinReviewed)})
	}
	if p.AuditRate < MinAuditRate || p.AuditRate > 1 {
		out = append(out, PolicyProblem{"auditRate", fmt.Sprintf("Must be from %g to 1.", MinAuditRate)})
	}
	return out
}

// FieldsMask is p's fields as a mask of places in EnrichableFields.
func (p TrustPolicy) FieldsMask() int {
	m := 0
	for i, f := range EnrichableFields {
		if slices.Contains(p.Fields, f) {
			m |= 1 << i
		}
	}
	return m
}

// Candidate is what the acting rule needs of a pending revision.
type Candidate struct {
	Confidence    *int     // nil when submitted without
	Template      string   // the product's attribute template, "" for none
	Proposed      []string // the proposed fields
	Issues        int      // how many issues the checks found
	Competing     bool     // another client has a pending revision for the product proposing one of the same fields
	PolicyFields  []string
	MinConfidence int
	// the policy's template, "" for any
	PolicyTemplate string
}

// Qualifies tells whether an active policy accepts the candidate, and if
// not, why.
func Qualifies(c Candidate) (bool, string) {
	switch {
	case c.Confidence == nil || *c.Confidence < c.MinConfidence:
		return false, "confidence below the policy's minimum"
	case c.PolicyTemplate != "" && c.Template != c.PolicyTemplate:
		return false, "product of another template"
	case len(c.Proposed) == 0:
		return false, "nothing proposed"
	case c.Issues > 0:
		return false, "has issues"
	case c.Competing:
		return false, "another client competes for the same fields"
	}
	for _, f := range c.Proposed {
		if !slices.Contains(c.PolicyFields, f) {
			return false, "proposes a field outside the policy's"
		}
	}
	return true, ""
}

func percent(x float64) string {
	return fmt.Sprintf("%.1f%%", x*100)
}
