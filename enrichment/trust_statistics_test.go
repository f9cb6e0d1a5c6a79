package enrichment

import (
	"math"
	"strings"
	"testing"
)

func TestWilsonBounds(t *testing.T) {
	// worked figures: p = r/n, center (p + z²/2n)/(1 + z²/n), half-width
	// z·sqrt(p(1-p)/n + z²/4n²)/(1 + z²/n)
	for _, c := range []struct {
		right, n     int
		z            float64
		lower, upper float64
	}{
		{196, 200, ActivationZ, 0.9562, 0.9910}, // 98%: activates at 0.95
		{195, 200, ActivationZ, 0.9495, 0.9878}, // 97.5%: the bound misses 0.95 by a hair
		{388, 400, ActivationZ, 0.9525, 0.9812}, // 97% needs about 400 fields
		{9300, 10000, ActivationZ, 0.9257, 0.9341},
		{2, 5, SuspensionZ, 0.0950, 0.8089},
		{4, 5, SuspensionZ, 0.3163, 0.9719},
		{8, 10, SuspensionZ, 0.4353, 0.9540},
		{7, 10, SuspensionZ, 0.3493, 0.9102},
		{180, 200, SuspensionZ, 0.8396, 0.9393},
		{5, 5, SuspensionZ, 0.4803, 1},
		{0, 5, SuspensionZ, 0, 0.5197},
	} {
		lo, hi := WilsonLower(c.right, c.n, c.z), WilsonUpper(c.right, c.n, c.z)
		if math.Abs(lo-c.lower) > 0.00005 || math.Abs(hi-c.upper) > 0.00005 {
			t.Errorf("%d of %d at z %g: [%.4f, %.4f], want [%.4f, %.4f]", c.right, c.n, c.z, lo, hi, c.lower, c.upper)
		}
	}
	if WilsonLower(0, 0, ActivationZ) != 0 || WilsonUpper(0, 0, SuspensionZ) != 1 {
		t.Error("nothing measured: the bounds are 0 and 1")
	}
}

func TestCountedFields(t *testing.T) {
	// name 0, slug 1, description 2, attributes 3, files 4
	accepted := NewFieldMask([]string{"name", "description", "attributes"}, []string{"name", "attributes"}, []string{"attributes.Color"})
	for _, c := range []struct {
		mask       FieldMask
		superseded []string
		counted    int
	}{
		{accepted, nil, 0b01101},
		{accepted, []string{"description"}, 0b01001}, // superseded before the decision: not the person's
		{accepted, []string{"name", "description", "attributes"}, 0},
		{NewFieldMask([]string{"slug"}, nil, nil), nil, 0b00010}, // rejected: counted, and wrong
	} {
		if got := CountedFields(c.mask, c.superseded); got != c.counted {
			t.Errorf("%b superseded %v: counted %05b, want %05b", c.mask, c.superseded, got, c.counted)
		}
	}
	if accepted.Clean() != 0b00001 {
		t.Errorf("right fields of the accepted one: %05b, want name only (attributes corrected)", accepted.Clean())
	}
}

func TestMeasure(t *testing.T) {
	// name is bit 0, slug 1, description 2
	groups := []TrustCount{
		{Counted: 0b001, Right: 0b001, N: 10}, // name, applied as is
		{Counted: 0b011, Right: 0b001, N: 4},  // name and slug, slug not applied
		{Counted: 0b010, Right: 0b000, N: 7},  // slug only, rejected: outside a name policy
		{Counted: 0b101, Right: 0b100, N: 2},  // name corrected, description as is
		{Counted: 0b000, Right: 0b000, N: 9},  // every field superseded: nothing counted
	}
	m := Measure(0b001, groups) // name only
	if m.Reviewed != 16 || m.Counted != 16 || m.Right != 14 {
		t.Errorf("name: %+v, want 16 reviewed, 16 counted, 14 right", m)
	}
	m = Measure(0b111, groups) // name, slug, description
	if m.Reviewed != 23 || m.Counted != 10+8+7+4 || m.Right != 10+4+2 {
		t.Errorf("three fields: %+v", m)
	}
	if (Measurement{}).Precision() != 0 || (Measurement{}).LowerBound() != 0 {
		t.Error("precision and bound of nothing")
	}
}

func TestEarned(t *testing.T) {
	p := TrustPolicy{Enabled: true, MinReviewed: 150, TargetPrecision: 0.95, State: PolicyLearning}
	for _, c := range []struct {
		p      TrustPolicy
		m      Measurement
		state  string
		reason string
	}{
		{p, Measurement{Reviewed: 160, Counted: 200, Right: 196}, PolicyActive, "lower 95% bound 95.6%) over 160 reviewed revisions: the bound meets the target 95.0%"},
		// 97.5% measured, above the target, but the bound is not
		{p, Measurement{Reviewed: 160, Counted: 200, Right: 195}, PolicyLearning, "Measured precision 97.5% (195 of 200 fields right, lower 95% bound 95.0%) over 160 reviewed revisions: the bound is below the target 95.0%"},
		{p, Measurement{Reviewed: 149, Counted: 300, Right: 300}, PolicyLearning, "149 reviewed revisions"},
		{TrustPolicy{MinReviewed: 20, TargetPrecision: 0.9, State: PolicyActive}, Measurement{Reviewed: 99, Counted: 99, Right: 99}, PolicyLearning, "Disabled"},
		{TrustPolicy{Enabled: true, MinReviewed: 20, TargetPrecision: 0.9, State: PolicySuspended}, Measurement{Reviewed: 99, Counted: 99, Right: 99}, PolicySuspended, ""},
		{TrustPolicy{MinReviewed: 20, TargetPrecision: 0.9, State: PolicySuspended}, Measurement{}, PolicyLearning, "Disabled"},
	} {
		state, reason := Earned(c.p, c.m)
		if state != c.state || !strings.Contains(reason, c.reason) || (c.reason == "") != (reason == "") {
			t.Errorf("%+v with %+v: %s %q, want %s with %q", c.p, c.m, state, reason, c.state, c.reason)
		}
	}
	// a vendor right 93% of the time never earns a 0.95 target, however much is measured
	for _, n := range []int{200, 1000, 10000, 100000} {
		if state, _ := Earned(p, Measurement{Reviewed: n, Counted: n, Right: n * 93 / 100}); state != PolicyActive {
			continue
		}
		t.Errorf("93%% over %d fields activated at 0.95", n)
	}
}

func TestWithdraws(t *testing.T) {
	v1, v2 := ModelVersion{"sim", "1"}, ModelVersion{"sim", "2"}
	run := func(v ModelVersion, confirmed, reverted int) []ClosedAudit {
		var out []ClosedAudit
		for range reverted {
			out = append(out, ClosedAudit{Version: v})
		}
		for range confirmed {
			out = append(out, ClosedAudit{Version: v, Confirmed: true})
		}
		return out
	}
	join := func(parts ...[]ClosedAudit) []ClosedAudit {
		var out []ClosedAudit
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		audits []ClosedAudit
		want   bool
		reason string
	}{
		{"four reverted: too few", run(v2, 0, 4), false, ""},
		{"4 of 5: upper 97.2%", run(v1, 4, 1), false, ""},
		{"3 of 5: upper 90.5%", run(v2, 3, 2), true, "3 of the last 5 audits of model version sim 2 closed since the policy became active were confirmed (60.0%, upper 99% bound 90.5%), below the target 95.0%"},
		{"8 of 10: upper 95.4%", run(v1, 8, 2), false, ""},
		{"7 of 10: upper 91.0%", run(v1, 7, 3), true, "7 of the last 10 audits of model version sim 1"},
		{"180 of 200: upper 93.9%", run(v1, 180, 20), true, "upper 99% bound 93.9%"},
		// a bad version is judged alone, though all together pass
		{"a bad version among good ones", join(run(v2, 1, 4), run(v1, 95, 0)), true, "model version sim 2"},
		// only the newest 200 count: 20 reverted older than 200 confirmed
		{"older than the window", join(run(v1, 200, 0), run(v1, 0, 20)), false, ""},
		{"no model", run(ModelVersion{}, 2, 3), true, "model version none"},
	} {
		got, reason := Withdraws(c.audits, 0.95)
		if got != c.want || !strings.Contains(reason, c.reason) || got == (reason == "") {
			t.Errorf("%s: %v %q, want %v with %q", c.name, got, reason, c.want, c.reason)
		}
	}
	// each version alone passes (4 of 5: upper 97.2%), all together do not
	// (16 of 20: upper 93.1%)
	mixed := join(run(v1, 4, 1), run(v2, 4, 1), run(ModelVersion{"sim", "3"}, 4, 1), run(ModelVersion{"sim", "4"}, 4, 1))
	if got, reason := Withdraws(mixed, 0.95); !got || !strings.Contains(reason, "of all versions (sim 1, sim 2, sim 3, sim 4)") {
		t.Errorf("16 of 20 in all (upper %.3f): %v %q", WilsonUpper(16, 20, SuspensionZ), got, reason)
	}
}

func TestProbation(t *testing.T) {
	// on probation, with no random draw: the 1st, 5th, 9th, 13th and 17th
	// are audited, and then 5 audits wait: nothing more is accepted
	v := VersionTally{}
	var audited []int
	accepted := 0
	for i := 1; i <= 30; i++ {
		ok, audit := v.Take(0.99, 0.05, 0.95)
		if !ok {
			continue
		}
		accepted++
		if audit {
			audited = append(audited, i)
		}
	}
	if accepted != 17 || len(audited) != 5 || audited[4] != 17 || v.Waiting != 5 {
		t.Fatalf("accepted %d, audited %v, waiting %d; want 17 accepted, the 1st, 5th, 9th, 13th, 17th audited", accepted, audited, v.Waiting)
	}
	// a person confirms one: the next is accepted, the 18th, not audited
	v.Waiting, v.Closed, v.Confirmed = 4, 1, 1
	if ok, audit := v.Take(0.99, 0.05, 0.95); !ok || audit {
		t.Errorf("after an audit closes: %v %v, want accepted without audit", ok, audit)
	}
	// the random share is drawn on probation too
	if ok, audit := (&VersionTally{Accepted: 2}).Take(0.01, 0.05, 0.95); !ok || !audit {
		t.Errorf("a draw below the rate on probation: %v %v", ok, audit)
	}
	// after 20 closed audits: only the draw, and waiting audits do not stop it
	done := VersionTally{Accepted: 80, Waiting: 9, Closed: ProbationAudits}
	if done.OnProbation() {
		t.Error("20 closed audits: still on probation")
	}
	if ok, audit := done.Take(0.99, 0.05, 0.95); !ok || audit {
		t.Errorf("the 81st after probation, draw above the rate: %v %v", ok, audit)
	}
	if ok, audit := done.Take(0.04, 0.05, 0.95); !ok || !audit {
		t.Errorf("after probation, draw below the rate: %v %v", ok, audit)
	}
	if (ModelVersion{}).String() != VersionNone || VersionOf(&Model{Name: "sim", Version: "2"}).String() != "sim 2" {
		t.Error("version names")
	}
}

// TestProbationAwaitsTheVerdict: before 5 of a version's audits are closed,
// closed ones that already fall below the target by the suspension's test
// hold its acceptances while the audits waiting can make 5.
func TestProbationAwaitsTheVerdict(t *testing.T) {
	for _, c := range []struct {
		name                               string
		waiting, closed, confirmed, accept int
		upper                              float64 // the closed audits' upper 99% bound
	}{
		// 0 of 1: 2.326² / (1 + 2.326²) = 5.410 / 6.410
		{"one reverted, four waiting", 4, 1, 0, 0, 0.844},
		// 1 of 2: center 0.5, half-width 2.326·√(0.125 + 0.338) / 3.705 = 0.427
		{"one of two confirmed, three waiting", 3, 2, 1, 0, 0.927},
		{"one confirmed, four waiting", 4, 1, 1, 1, 1},
		// 3 of 4: center 0.606, half-width 0.359
		{"three of four confirmed", 1, 4, 3, 1, 0.965},
		// nothing waits that could make 5: accepting opens the audits that will
		{"one reverted, none waiting", 0, 1, 0, 1, 0.844},
		// 5 closed: the suspension decides, not probation
		{"two of five confirmed, none waiting", 0, 5, 2, 1, 0.809},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := WilsonUpper(c.confirmed, c.closed, SuspensionZ); math.Abs(got-c.upper) > 0.001 {
				t.Errorf("upper bound %.4f, want %.3f", got, c.upper)
			}
			v := VersionTally{Accepted: 17, Waiting: c.waiting, Closed: c.closed, Confirmed: c.confirmed}
			accept, _ := v.Take(0.99, 0.05, 0.95)
			if accept != (c.accept == 1) {
				t.Errorf("accepts %v at a target of 0.95", accept)
			}
		})
	}
}
