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
