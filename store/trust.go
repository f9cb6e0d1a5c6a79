package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Trust counters: each revision a person decided counts once, keyed by
// its client, its product's template at the decision, its confidence (-1
// without), the day of the decision, the fields it proposed and the fields
// applied without correction (masks of places in EnrichableFields). Any
// policy's measurement (a client, a template or any, a minimum confidence,
// a set of fields, the last 90 days) is then a sum over a few rows, kept in
// the decision's transaction; RecountMetrics rebuilds them.

// trustKey is one trust counter of an organization.
type trustKey struct {
	client, template, day string
	confidence            int // -1 without
	proposed, clean       int
}

// trustDeltas are people's decisions to count, added up by counter.
type trustDeltas map[trustKey]int

// add counts a person's decision on a revision of client for a product of
// template ("" for none) with confidence (nil without), what it did per
// field, at the moment at.
func (d trustDeltas) add(client, template string, confidence *int, mask enrichment.FieldMask, at time.Time) {
	c := -1
	if confidence != nil {
		c = *confidence
	}
	d[trustKey{client: client, template: template, day: at.UTC().Format(time.DateOnly), confidence: c,
		proposed: mask.ProposedFields(), clean: mask.Clean()}]++
}

// writeTrustDeltas adds the deltas to org's trust counters, in the
// caller's transaction.
func (s *Trust) writeTrustDeltas(org enrichment.Org, d trustDeltas) error {
	if len(d) == 0 {
		return nil
	}
	q := s.db().NewQuery(`INSERT INTO ` + schema.TrustCountsTable + ` (organization, client, template, confidence, day, proposed, clean, n)
		VALUES ({:org}, {:client}, {:template}, {:confidence}, {:day}, {:proposed}, {:clean}, {:n})
		ON CONFLICT (organization, client, day, template, confidence, proposed, clean) DO UPDATE SET n = n + excluded.n`).Prepare()
	defer q.Close()
	for k, n := range d {
		_, err := q.Bind(dbx.Params{"org": string(org), "client": k.client, "template": k.template, "confidence": k.confidence,
			"day": k.day, "proposed": k.proposed, "clean": k.clean, "n": n}).Execute()
		if err != nil {
			return fmt.Errorf("count decisions for the trust policies of client %s: %w", k.client, err)
		}
	}
	return nil
}

// PolicyScope is what a policy measures: a client's revisions, of a
// template ("" for any product), with at least a confidence.
type PolicyScope struct {
	Client        string
	Template      string
	MinConfidence int
}

// TrustCounts reads the trust counters of scope over the MeasureDays days
// up to now, grouped by proposed and clean fields.
func (s *Trust) TrustCounts(org enrichment.Org, scope PolicyScope, now time.Time) ([]enrichment.TrustCount, error) {
	params := dbx.Params{"org": string(org), "client": scope.Client, "min": scope.MinConfidence,
		"since": now.UTC().AddDate(0, 0, 1-enrichment.MeasureDays).Format(time.DateOnly)}
	template := ""
	if scope.Template != "" {
		template, params["template"] = " AND [[template]] = {:template}", scope.Template
	}
	var out []struct {
		Proposed int `db:"proposed"`
		Clean    int `db:"clean"`
		N        int `db:"n"`
	}
	err := s.db().NewQuery(`SELECT [[proposed]], [[clean]], SUM([[n]]) AS [[n]] FROM ` + schema.TrustCountsTable + `
		WHERE [[organization]] = {:org} AND [[client]] = {:client} AND [[day]] >= {:since} AND [[confidence]] >= {:min}` + template + `
		GROUP BY [[proposed]], [[clean]]`).Bind(params).All(&out)
	if err != nil {
		return nil, fmt.Errorf("trust counters of client %s: %w", scope.Client, err)
	}
	groups := make([]enrichment.TrustCount, len(out))
	for i, g := range out {
		groups[i] = enrichment.TrustCount{Proposed: g.Proposed, Clean: g.Clean, N: g.N}
	}
	return groups, nil
}

// recountTrust rebuilds org's trust counters from the revisions people
// decided (the template is the product's as it is now).
func (s *Trust) recountTrust(org enrichment.Org) error {
	if _, err := s.db().Delete(schema.TrustCountsTable, dbx.HashExp{"organization": string(org)}).Execute(); err != nil {
		return fmt.Errorf("forget the trust counters of organization %s: %w", org, err)
	}
	_, err := s.db().NewQuery(`INSERT INTO ` + schema.TrustCountsTable + ` (organization, client, template, confidence, day, proposed, clean, n)
		SELECT r.[[organization]], r.[[apiClient]], COALESCE(p.[[attributeTemplate]], ''),
			CASE WHEN r.[[confidenceBand]] = '' THEN -1 ELSE r.[[confidence]] END,
			strftime('%Y-%m-%d', r.[[reviewedAt]]), r.[[decisionMask]] & 31,
			((r.[[decisionMask]] >> 5) & 31) & ~((r.[[decisionMask]] >> 10) & 31), COUNT(*)
		FROM {{revisions}} r LEFT JOIN {{products}} p ON p.[[id]] = r.[[product]]
		WHERE r.[[organization]] = {:org} AND r.[[decidedBy]] = 'reviewer' AND r.[[reviewedAt]] != ''
		GROUP BY 1, 2, 3, 4, 5, 6, 7`).Bind(dbx.Params{"org": string(org)}).Execute()
	if err != nil {
		return fmt.Errorf("count the decisions of organization %s for the trust policies: %w", org, err)
	}
	return nil
}

// TrustCounter is one stored trust counter row, for checks against a
// recount.
type TrustCounter struct {
	Client, Template, Day string
	Confidence, Proposed  int
	Clean, N              int
}

// TrustCounters lists org's trust counters that count anything, in key order.
func (s *Trust) TrustCounters(org enrichment.Org) ([]TrustCounter, error) {
	var out []TrustCounter
	err := s.db().NewQuery(`SELECT [[client]] AS Client, [[template]] AS Template, [[day]] AS Day, [[confidence]] AS Confidence,
		[[proposed]] AS Proposed, [[clean]] AS Clean, [[n]] AS N FROM ` + schema.TrustCountsTable + `
		WHERE [[organization]] = {:org} AND [[n]] != 0 ORDER BY 1, 3, 2, 4, 5, 6`).Bind(dbx.Params{"org": string(org)}).All(&out)
	if err != nil {
		return nil, fmt.Errorf("list the trust counters of organization %s: %w", org, err)
	}
	return out, nil
}

// Policy is a stored trust policy.
type Policy struct {
	ID       string
	Org      enrichment.Org
	Client   string
	Template string
	enrichment.TrustPolicy
	MeasuredPrecision float64
	MeasuredReviewed  int
	EnabledAt         types.DateTime
}

// Scope is what p measures.
func (p Policy) Scope() PolicyScope {
	return PolicyScope{Client: p.Client, Template: p.Template, MinConfidence: p.MinConfidence}
}

type policyRow struct {
	ID                string         `db:"id"`
	Org               string         `db:"organization"`
	Client            string         `db:"apiClient"`
	Template          string         `db:"template"`
	Fields            types.JSONRaw  `db:"fields"`
	MinConfidence     int            `db:"minConfidence"`
	TargetPrecision   float64        `db:"targetPrecision"`
	MinReviewed       int            `db:"minReviewed"`
	AuditRate         float64        `db:"auditRate"`
	Enabled           bool           `db:"enabled"`
	State             string         `db:"state"`
	MeasuredPrecision float64        `db:"measuredPrecision"`
	MeasuredReviewed  int            `db:"measuredReviewed"`
	EnabledAt         types.DateTime `db:"enabledAt"`
}

func (r policyRow) policy() Policy {
	return Policy{ID: r.ID, Org: enrichment.Org(r.Org), Client: r.Client, Template: r.Template,
		TrustPolicy: enrichment.TrustPolicy{Fields: decodeStrings(r.Fields), MinConfidence: r.MinConfidence,
			TargetPrecision: r.TargetPrecision, MinReviewed: r.MinReviewed, AuditRate: r.AuditRate, Enabled: r.Enabled, State: r.State},
		MeasuredPrecision: r.MeasuredPrecision, MeasuredReviewed: r.MeasuredReviewed, EnabledAt: r.EnabledAt}
}

var policyColumns = []string{"id", "organization", "apiClient", "template", "fields", "minConfidence", "targetPrecision",
	"minReviewed", "auditRate", "enabled", "state", "measuredPrecision", "measuredReviewed", "enabledAt"}

// Policies lists the trust policies of every organization, in id order;
// activeOnly keeps the enabled, active ones.
func (s *Trust) Policies(activeOnly bool) ([]Policy, error) {
	q := s.db().Select(policyColumns...).From(schema.TrustPolicies).OrderBy("CAST(id AS INTEGER)")
	if activeOnly {
		q = q.Where(dbx.HashExp{"enabled": true, "state": enrichment.PolicyActive})
	}
	var rows []policyRow
	if err := q.All(&rows); err != nil {
		return nil, fmt.Errorf("list trust policies: %w", err)
	}
	out := make([]Policy, len(rows))
	for i, r := range rows {
		out[i] = r.policy()
	}
	return out, nil
}

// FindPolicy reads one trust policy; enrichment.ErrNotFound when there is none.
func (s *Trust) FindPolicy(id string) (Policy, error) {
	var row policyRow
	err := s.db().Select(policyColumns...).From(schema.TrustPolicies).Where(dbx.HashExp{"id": id}).One(&row)
	if errors.Is(err, sql.ErrNoRows) {
		return Policy{}, enrichment.NotFound("trust policy")
	}
	if err != nil {
		return Policy{}, fmt.Errorf("find trust policy %s: %w", id, err)
	}
	return row.policy(), nil
}

// PolicyDecided reports whether policy decided any of org's revisions,
// which then name it (so it may be disabled, not deleted).
func (s *Trust) PolicyDecided(org enrichment.Org, policy string) (bool, error) {
	var decided bool
	err := s.db().NewQuery(`SELECT EXISTS (SELECT 1 FROM {{revisions}} WHERE [[organization]] = {:org} AND [[policy]] = {:policy})`).
		Bind(dbx.Params{"org": string(org), "policy": policy}).Row(&decided)
	if err != nil {
		return false, fmt.Errorf("find revisions decided by trust policy %s: %w", policy, err)
	}
	return decided, nil
}

// Measure is p's measurement at now, from the trust counters.
func (s *Trust) Measure(p Policy, now time.Time) (enrichment.Measurement, error) {
	groups, err := s.TrustCounts(p.Org, p.Scope(), now)
	if err != nil {
		return enrichment.Measurement{}, err
	}
	return enrichment.Measure(p.FieldsMask(), groups), nil
}

// ClosedAudits are the audits of policy closed after since, newest first,
// at most enrichment.AuditWindow: the suspension rule's window.
func (s *Trust) ClosedAudits(policy string, since time.Time) ([]string, error) {
	var out []string
	err := s.db().NewQuery(`SELECT [[audit]] FROM {{revisions}} INDEXED BY ` + schema.IdxRevisionsPolicyAudits + `
		WHERE [[policy]] = {:policy} AND [[audit]] IN ('confirmed', 'reverted') AND [[auditedAt]] >= {:since}
		ORDER BY [[auditedAt]] DESC LIMIT {:n}`).
		Bind(dbx.Params{"policy": policy, "since": FormatTime(since), "n": enrichment.AuditWindow}).Column(&out)
	if err != nil {
		return nil, fmt.Errorf("closed audits of trust policy %s: %w", policy, err)
	}
	return out, nil
}
