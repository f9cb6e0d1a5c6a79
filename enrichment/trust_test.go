package enrichment

import (
	"strings"
	"testing"
)

func TestPolicyCheck(t *testing.T) {
	ok := TrustPolicy{Fields: []string{"name"}, MinConfidence: 80, TargetPrecision: 0.95, MinReviewed: 200, AuditRate: 0.05}
	if p := ok.Check(); len(p) != 0 {
		t.Fatalf("a policy in range: %v", p)
	}
	for _, c := range []struct {
		change func(*TrustPolicy)
		field  string
	}{
		{func(p *TrustPolicy) { p.Fields = nil }, "fields"},
		{func(p *TrustPolicy) { p.Fields = []string{"name", "gtin"} }, "fields"},
		{func(p *TrustPolicy) { p.MinConfidence = -1 }, "minConfidence"},
		{func(p *TrustPolicy) { p.MinConfidence = 101 }, "minConfidence"},
		{func(p *TrustPolicy) { p.TargetPrecision = 0.49 }, "targetPrecision"},
		{func(p *TrustPolicy) { p.TargetPrecision = 1.01 }, "targetPrecision"},
		{func(p *TrustPolicy) { p.MinReviewed = 19 }, "minReviewed"},
		{func(p *TrustPolicy) { p.AuditRate = 0.009 }, "auditRate"},
		{func(p *TrustPolicy) { p.AuditRate = 1.5 }, "auditRate"},
	} {
		p := ok
		c.change(&p)
		if problems := p.Check(); len(problems) != 1 || problems[0].Field != c.field {
			t.Errorf("%+v: %v, want one problem with %s", p, problems, c.field)
		}
	}
	edges := ok
	edges.MinConfidence, edges.TargetPrecision, edges.MinReviewed, edges.AuditRate = 0, 0.5, 20, 1
	if p := edges.Check(); len(p) != 0 {
		t.Errorf("the ranges' edges: %v", p)
	}
}

func TestMeasure(t *testing.T) {
	// name is bit 0, slug 1, description 2
	groups := []TrustCount{
		{Proposed: 0b001, Clean: 0b001, N: 10}, // name, applied as is
		{Proposed: 0b011, Clean: 0b001, N: 4},  // name and slug, slug not applied
		{Proposed: 0b010, Clean: 0b000, N: 7},  // slug only, rejected: outside a name policy
		{Proposed: 0b101, Clean: 0b100, N: 2},  // name corrected, description as is
	}
	m := Measure(0b001, groups) // name only
	if m.Reviewed != 16 || m.Decided != 16 || m.Clean != 14 {
		t.Errorf("name: %+v, want 16 reviewed, 16 decided, 14 clean", m)
	}
	m = Measure(0b111, groups) // name, slug, description
	if m.Reviewed != 23 || m.Decided != 10+8+7+4 || m.Clean != 10+4+2 {
		t.Errorf("three fields: %+v", m)
	}
	if (Measurement{}).Precision() != 0 {
		t.Error("precision of nothing")
	}
}

func TestEarned(t *testing.T) {
	p := TrustPolicy{Enabled: true, MinReviewed: 20, TargetPrecision: 0.9, State: PolicyLearning}
	for _, c := range []struct {
		p      TrustPolicy
		m      Measurement
		state  string
		reason string
	}{
		{p, Measurement{Reviewed: 20, Decided: 20, Clean: 18}, PolicyActive, "meets the target 90.0%"},
		{p, Measurement{Reviewed: 19, Decided: 19, Clean: 19}, PolicyLearning, "19 reviewed revisions"},
		{p, Measurement{Reviewed: 20, Decided: 20, Clean: 17}, PolicyLearning, "85.0% over 20 reviewed revisions is below the target 90.0%"},
		{TrustPolicy{MinReviewed: 20, TargetPrecision: 0.9, State: PolicyActive}, Measurement{Reviewed: 99, Decided: 99, Clean: 99}, PolicyLearning, "Disabled"},
		{TrustPolicy{Enabled: true, MinReviewed: 20, TargetPrecision: 0.9, State: PolicySuspended}, Measurement{Reviewed: 99, Decided: 99, Clean: 99}, PolicySuspended, ""},
		{TrustPolicy{MinReviewed: 20, TargetPrecision: 0.9, State: PolicySuspended}, Measurement{}, PolicyLearning, "Disabled"},
	} {
		state, reason := Earned(c.p, c.m)
		if state != c.state || !strings.Contains(reason, c.reason) || (c.reason == "") != (reason == "") {
			t.Errorf("%+v with %+v: %s %q, want %s with %q", c.p, c.m, state, reason, c.state, c.reason)
		}
	}
}

func TestSuspends(t *testing.T) {
	run := func(confirmed, reverted int) []string {
		var out []string
		for range reverted {
			out = append(out, AuditReverted)
		}
		for range confirmed {
			out = append(out, AuditConfirmed)
		}
		return out
	}
	for _, c := range []struct {
		closed []string
		want   bool
	}{
		{run(0, 9), false}, // fewer than 10 closed
		{run(9, 1), false}, // 90% meets 0.9
		{run(8, 2), true},  // 80%
		{run(1, 9), true},
	} {
		got, reason := Suspends(c.closed, 0.9)
		if got != c.want || got == (reason == "") {
			t.Errorf("%v: %v %q", c.closed, got, reason)
		}
	}
	// newest first: only the newest 50 count
	if got, reason := Suspends(append(run(50, 0), run(0, 10)...), 0.9); got {
		t.Errorf("10 reverted older than the newest 50 confirmed: suspended (%s)", reason)
	}
	if got, _ := Suspends(append(run(0, 10), run(40, 0)...), 0.9); !got {
		t.Error("10 reverted newest among 50: 80% confirmed should suspend at 0.9")
	}
}

func TestQualifies(t *testing.T) {
	conf := func(n int) *int { return &n }
	base := Candidate{Confidence: conf(90), Proposed: []string{"name"}, PolicyFields: []string{"name", "description"}, MinConfidence: 80}
	if ok, why := Qualifies(base); !ok {
		t.Fatalf("the base case: %s", why)
	}
	for _, c := range []struct {
		change func(*Candidate)
		why    string
	}{
		{func(c *Candidate) { c.Confidence = nil }, "confidence"},
		{func(c *Candidate) { c.Confidence = conf(79) }, "confidence"},
		{func(c *Candidate) { c.PolicyTemplate, c.Template = "7", "8" }, "template"},
		{func(c *Candidate) { c.PolicyTemplate = "7" }, "template"},
		{func(c *Candidate) { c.Proposed = []string{"name", "slug"} }, "outside"},
		{func(c *Candidate) { c.Proposed = nil }, "nothing"},
		{func(c *Candidate) { c.Issues = 1 }, "issues"},
		{func(c *Candidate) { c.Competing = true }, "competes"},
	} {
		cand := base
		c.change(&cand)
		if ok, why := Qualifies(cand); ok || !strings.Contains(why, c.why) {
			t.Errorf("%+v: %v %q, want refused for %s", cand, ok, why, c.why)
		}
	}
	same := base
	same.PolicyTemplate, same.Template, same.Confidence = "7", "7", conf(80)
	if ok, why := Qualifies(same); !ok {
		t.Errorf("of the template, at the minimum: %s", why)
	}
}
