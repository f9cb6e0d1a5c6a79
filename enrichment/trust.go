package enrichment

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// Trust policies as rules of values (docs/review.md): when a vendor's
// measured record earns automatic acceptance, which revisions a policy
// accepts, and when its audits suspend it. The store measures and reads;
// these functions decide.

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
	// AuditWindow closed audits, the newest, judge a policy once at least
	// MinClosedAudits of them exist.
	AuditWindow     = 50
	MinClosedAudits = 10
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

// TrustCount is a number of revisions decided by people with the same
// proposed fields and the same fields applied without correction (masks of
// places in EnrichableFields): one group of a policy's measurement.
type TrustCount struct {
	Proposed, Clean, N int
}

// Measurement is a policy's measured record.
type Measurement struct {
	Reviewed int // revisions that proposed a field among the policy's
	Decided  int // their fields among the policy's, decided
	Clean    int // of those, applied without correction
}

// Precision is the share of decided fields applied without correction; 0
// when none was decided.
func (m Measurement) Precision() float64 {
	if m.Decided == 0 {
		return 0
	}
	return float64(m.Clean) / float64(m.Decided)
}

// Measure adds up the groups for a policy on fieldsMask: each revision
// that proposed one of its fields counts once, each such field once.
func Measure(fieldsMask int, groups []TrustCount) Measurement {
	var m Measurement
	for _, g := range groups {
		proposed := g.Proposed & fieldsMask
		if proposed == 0 {
			continue
		}
		m.Reviewed += g.N
		m.Decided += g.N * bits.OnesCount(uint(proposed))
		m.Clean += g.N * bits.OnesCount(uint(g.Clean&proposed))
	}
	return m
}

// Earned is the state p's measurement gives it, with the reason: suspended
// stays suspended while p is enabled; a disabled policy is learning.
func Earned(p TrustPolicy, m Measurement) (state, reason string) {
	switch {
	case p.State == PolicySuspended && p.Enabled:
		return PolicySuspended, ""
	case !p.Enabled:
		return PolicyLearning, "Disabled: the policy accepts nothing."
	case m.Reviewed < p.MinReviewed:
		return PolicyLearning, fmt.Sprintf("%d reviewed revisions measured in the last %d days; %d are needed.", m.Reviewed, MeasureDays, p.MinReviewed)
	case m.Precision() < p.TargetPrecision:
		return PolicyLearning, fmt.Sprintf("Measured precision %s over %d reviewed revisions is below the target %s.",
			percent(m.Precision()), m.Reviewed, percent(p.TargetPrecision))
	}
	return PolicyActive, fmt.Sprintf("Measured precision %s over %d reviewed revisions meets the target %s.",
		percent(m.Precision()), m.Reviewed, percent(p.TargetPrecision))
}

// Suspends tells whether a policy's closed audits, newest first, suspend
// it: when at least MinClosedAudits of the newest AuditWindow exist and the
// confirmed share among them is below target. reason says why.
func Suspends(closed []string, target float64) (bool, string) {
	if len(closed) > AuditWindow {
		closed = closed[:AuditWindow]
	}
	if len(closed) < MinClosedAudits {
		return false, ""
	}
	confirmed := 0
	for _, a := range closed {
		if a == AuditConfirmed {
			confirmed++
		}
	}
	share := float64(confirmed) / float64(len(closed))
	if share >= target {
		return false, ""
	}
	return true, fmt.Sprintf("Suspended: %d of the last %d closed audits were confirmed (%s), below the target %s. Disable and enable the policy to resume.",
		confirmed, len(closed), percent(share), percent(target))
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
