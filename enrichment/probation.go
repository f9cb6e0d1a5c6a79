package enrichment

// Probation of model versions (docs/review.md): every model version a
// policy accepts from starts on probation when the policy becomes active.
// On probation the policy audits the 1st, 5th, 9th, … revision of that
// version it accepts, and accepts none of it while ProbationWaiting of its
// audits wait for a person; once ProbationAudits of its audits are closed,
// only the random share auditRate is audited.
//
// Before a version has the MinSuspensionAudits closed audits that may
// suspend the policy, the waiting ones give the verdict: while its closed
// audits already fall below the target by the suspension's own test (their
// upper 99% bound) and enough audits wait to reach that minimum, the policy
// accepts none of it either. A bad version is then stopped by its first
// audits, not after four more acceptances for each of them that a person
// closes; a good one that drew a wrong revision first waits for its
// audits, and goes on when they clear it.

// Probation's constants.
const (
	ProbationAudits  = 20 // closed audits that end a version's probation
	ProbationEvery   = 4  // on probation, one acceptance in this many is audited, the first included
	ProbationWaiting = 5  // pending audits of a version on probation that stop its acceptances
)

// VersionNone is the version of a revision without a model.
const VersionNone = "none"

// ModelVersion is a revision's model name and version; the zero value is
// a revision without a model.
type ModelVersion struct{ Name, Version string }

// VersionOf is the version of a revision's model (nil: none).
func VersionOf(m *Model) ModelVersion {
	if m == nil {
		return ModelVersion{}
	}
	return ModelVersion{m.Name, m.Version}
}

// String is the version as people read it: "NAME VERSION", or "none".
func (v ModelVersion) String() string {
	if v == (ModelVersion{}) {
		return VersionNone
	}
	return v.Name + " " + v.Version
}

// VersionTally is one version's record under a policy since the policy
// last became active.
type VersionTally struct {
	Accepted  int `json:"accepted"`  // revisions of the version the policy accepted
	Waiting   int `json:"waiting"`   // their audits waiting for a person
	Closed    int `json:"closed"`    // their audits closed
	Confirmed int `json:"confirmed"` // of those, confirmed
}

// OnProbation tells whether the version is still on probation.
func (v VersionTally) OnProbation() bool { return v.Closed < ProbationAudits }

// Take decides one more revision of the version that the policy, aiming
// at target, would accept: whether it accepts it, and whether it audits it
// (on probation the 1st, 5th, 9th, … acceptance; otherwise, and besides,
// when draw, a number in [0, 1), is below rate). The tally counts what it
// decided.
func (v *VersionTally) Take(draw, rate, target float64) (accept, audit bool) {
	probation := v.OnProbation()
	if probation && (v.Waiting >= ProbationWaiting || v.awaitsVerdict(target)) {
		return false, false
	}
	v.Accepted++
	audit = draw < rate || (probation && (v.Accepted-1)%ProbationEvery == 0)
	if audit {
		v.Waiting++
	}
	return true, audit
}

// awaitsVerdict tells whether the version's closed audits, fewer than may
// suspend, already fall below target by the suspension's test while the
// audits waiting are enough to reach that number.
func (v VersionTally) awaitsVerdict(target float64) bool {
	return v.Closed > 0 && v.Closed < MinSuspensionAudits && v.Closed+v.Waiting >= MinSuspensionAudits &&
		WilsonUpper(v.Confirmed, v.Closed, SuspensionZ) < target
}
