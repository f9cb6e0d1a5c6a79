package enrichment

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// The statistics of trust (docs/review.md): a policy earns automatic
// acceptance when the lower bound of a one-sided 95% Wilson interval of its
// measured precision reaches its target, and loses it when the upper bound
// of a one-sided 99% interval over its audits falls below the target. The
// bounds, not the shares, decide: a few chance misses of a good vendor do
// not suspend it, and a short lucky run of a poor one does not activate it.

// The statistics' constants.
const (
	// ActivationZ is the z of the one-sided 95% interval whose lower bound earns activation.
	ActivationZ = 1.645
	// SuspensionZ is the z of the one-sided 99% interval whose upper bound withdraws it.
	SuspensionZ = 2.326
	// MinSuspensionAudits closed audits are needed before they may suspend a policy.
	MinSuspensionAudits = 5
	// SuspensionWindow is how many of the newest closed audits judge a policy (and each version).
	SuspensionWindow = 200
)

// WilsonLower is the lower bound of the Wilson score interval of right
// successes in n trials at z; 0 when n is 0.
func WilsonLower(right, n int, z float64) float64 {
	if n <= 0 {
		return 0
	}
	center, margin := wilson(right, n, z)
	return math.Max(0, center-margin)
}

// WilsonUpper is the upper bound of the Wilson score interval of right
// successes in n trials at z; 1 when n is 0.
func WilsonUpper(right, n int, z float64) float64 {
	if n <= 0 {
		return 1
	}
	center, margin := wilson(right, n, z)
	return math.Min(1, center+margin)
}

// wilson is the Wilson interval's center and half-width.
func wilson(right, n int, z float64) (center, margin float64) {
	p, fn, z2 := float64(right)/float64(n), float64(n), z*z
	denom := 1 + z2/fn
	center = (p + z2/(2*fn)) / denom
	margin = z * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn)) / denom
	return center, margin
}

// CountedFields is the mask of places in EnrichableFields a person decided
// on a revision whose decision did mask: the proposed fields that no newer
// proposal superseded (a superseded field was never the person's to
// decide).
func CountedFields(mask FieldMask, superseded []string) int {
	counted := mask.ProposedFields()
	for i, name := range EnrichableFields {
		if slices.Contains(superseded, name) {
			counted &^= 1 << i
		}
	}
	return counted
}

// TrustCount is a number of revisions decided by people with the same
// counted fields and the same right fields (masks of places in
// EnrichableFields): one group of a policy's measurement.
type TrustCount struct {
	Counted, Right, N int
}

// Measurement is a policy's measured record.
type Measurement struct {
	Reviewed int // revisions with a counted field among the policy's
	Counted  int // their counted fields among the policy's
	Right    int // of those, right: applied as proposed, or the audit confirmed
}

// Precision is the share of counted fields that were right; 0 when none
// was counted.
func (m Measurement) Precision() float64 {
	if m.Counted == 0 {
		return 0
	}
	return float64(m.Right) / float64(m.Counted)
}

// LowerBound is the lower bound of the one-sided 95% Wilson interval of
// the precision: what earns activation.
func (m Measurement) LowerBound() float64 {
	return WilsonLower(m.Right, m.Counted, ActivationZ)
}

// Measure adds up the groups for a policy on fieldsMask: each revision
// with a counted field among the policy's counts once, each such field once.
func Measure(fieldsMask int, groups []TrustCount) Measurement {
	var m Measurement
	for _, g := range groups {
		counted := g.Counted & fieldsMask
		if counted == 0 {
			continue
		}
		m.Reviewed += g.N
		m.Counted += g.N * bits.OnesCount(uint(counted))
		m.Right += g.N * bits.OnesCount(uint(g.Right&counted))
	}
	return m
}

// Earned is the state p's measurement gives it, with the reason: suspended
// stays suspended while p is enabled; a disabled policy is learning.
func Earned(p TrustPolicy, m Measurement) (state, reason string) {
	figures := fmt.Sprintf("Measured precision %s (%d of %d fields right, lower 95%% bound %s) over %d reviewed revisions",
		percent(m.Precision()), m.Right, m.Counted, percent(m.LowerBound()), m.Reviewed)
	switch {
	case p.State == PolicySuspended && p.Enabled:
		return PolicySuspended, ""
	case !p.Enabled:
		return PolicyLearning, "Disabled: the policy accepts nothing."
	case m.Reviewed < p.MinReviewed:
		return PolicyLearning, fmt.Sprintf("%d reviewed revisions measured in the last %d days; %d are needed.", m.Reviewed, MeasureDays, p.MinReviewed)
	case m.LowerBound() < p.TargetPrecision:
		return PolicyLearning, fmt.Sprintf("%s: the bound is below the target %s.", figures, percent(p.TargetPrecision))
	}
	return PolicyActive, fmt.Sprintf("%s: the bound meets the target %s.", figures, percent(p.TargetPrecision))
}

// ClosedAudit is one audit a reviewer closed: its revision's model version
// and whether it was confirmed (right) or reverted (wrong).
type ClosedAudit struct {
	Version   ModelVersion
	Confirmed bool
}

// auditTally is the audits of one judgement: in all, or of one version.
type auditTally struct{ n, confirmed int }

// Withdraws tells whether a policy's audits closed since it last became
// active, newest first, suspend it: when, over the newest SuspensionWindow
// of them (at least MinSuspensionAudits), in all or for one version, the
// upper bound of the one-sided 99% Wilson interval is below target. reason
// names the figures and the version.
func Withdraws(audits []ClosedAudit, target float64) (bool, string) {
	all := auditTally{}
	byVersion := map[ModelVersion]*auditTally{}
	var versions []ModelVersion
	for _, a := range audits {
		v := byVersion[a.Version]
		if v == nil {
			v = &auditTally{}
			byVersion[a.Version] = v
			versions = append(versions, a.Version)
		}
		for _, t := range []*auditTally{&all, v} {
			if t.n < SuspensionWindow {
				t.n++
				if a.Confirmed {
					t.confirmed++
				}
			}
		}
	}
	slices.SortFunc(versions, func(a, b ModelVersion) int { return strings.Compare(a.String(), b.String()) })
	for _, v := range versions {
		if t := byVersion[v]; fails(*t, target) {
			return true, suspensionReason(*t, target, "of model version "+v.String())
		}
	}
	if fails(all, target) {
		names := make([]string, len(versions))
		for i, v := range versions {
			names[i] = v.String()
		}
		return true, suspensionReason(all, target, "of all versions ("+strings.Join(names, ", ")+")")
	}
	return false, ""
}

// fails tells whether a tally's upper bound is below target.
func fails(t auditTally, target float64) bool {
	return t.n >= MinSuspensionAudits && WilsonUpper(t.confirmed, t.n, SuspensionZ) < target
}

func suspensionReason(t auditTally, target float64, of string) string {
	return fmt.Sprintf("Suspended: %d of the last %d audits %s closed since the policy became active were confirmed (%s, upper 99%% bound %s), below the target %s. Disable and enable the policy to resume.",
		t.confirmed, t.n, of, percent(float64(t.confirmed)/float64(t.n)), percent(WilsonUpper(t.confirmed, t.n, SuspensionZ)), percent(target))
}
