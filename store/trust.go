package store

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Trust counters: each revision a person decided (a reviewer's decision
// or a closed audit) counts once, keyed by its client, its product's
// template at the decision, its confidence (-1 without), the day of the
// decision, the fields counted (those the person decided: not superseded)
// and the fields right (applied as proposed, or confirmed by the audit),
// masks of places in EnrichableFields. Any policy's measurement (a client,
// a template or any, a minimum confidence, a set of fields, the last 90
// days) is then a sum over a few rows, kept in the decision's transaction;
// RecountMetrics rebuilds them.

// trustKey is one trust counter of an organization.
type trustKey struct {
	client, template, day string
	confidence            int // -1 without
	counted, right        int
}

// trustDeltas are people's decisions to count, added up by counter.
type trustDeltas map[trustKey]int

// add counts a person's decision on a revision of client for a product of
// template ("" for none) with confidence (nil without): the fields counted
// and those right, at the moment at.
func (d trustDeltas) add(client, template string, confidence *int, counted, right int, at time.Time) {
	c := -1
	if confidence != nil {
		c = *confidence
	}
	d[trustKey{client: client, template: template, day: at.UTC().Format(time.DateOnly), confidence: c,
		counted: counted, right: right & counted}]++
}

// writeTrustDeltas adds the deltas to org's trust counters, in the
// caller's transaction, and tells the step after its commit.
func (s *Trust) writeTrustDeltas(org enrichment.Org, d trustDeltas) error {
	if len(d) == 0 {
		return nil
	}
	q := s.db().NewQuery(`INSERT INTO ` + schema.TrustCountsTable + ` (organization, client, template, confidence, day, counted, correct, n)
		VALUES ({:org}, {:client}, {:template}, {:confidence}, {:day}, {:counted}, {:correct}, {:n})
		ON CONFLICT (organization, client, day, template, confidence, counted, correct) DO UPDATE SET n = n + excluded.n`).Prepare()
	defer q.Close()
	for k, n := range d {
		_, err := q.Bind(dbx.Params{"org": string(org), "client": k.client, "template": k.template, "confidence": k.confidence,
			"day": k.day, "counted": k.counted, "correct": k.right, "n": n}).Execute()
		if err != nil {
			return fmt.Errorf("count decisions for the trust policies of client %s: %w", k.client, err)
		}
	}
	clients := make([]string, 0, 1)
	for k := range d {
		if !slices.Contains(clients, k.client) {
			clients = append(clients, k.client)
		}
	}
	s.committed(Committed{Counted: clients})
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
// up to now, grouped by counted and right fields.
func (s *Trust) TrustCounts(org enrichment.Org, scope PolicyScope, now time.Time) ([]enrichment.TrustCount, error) {
	params := dbx.Params{"org": string(org), "client": scope.Client, "min": scope.MinConfidence,
		"since": now.UTC().AddDate(0, 0, 1-enrichment.MeasureDays).Format(time.DateOnly)}
	template := ""
	if scope.Template != "" {
		template, params["template"] = " AND [[template]] = {:template}", scope.Template
	}
	var out []struct {
		Counted int `db:"counted"`
		Right   int `db:"correct"`
		N       int `db:"n"`
	}
	err := s.db().NewQuery(`SELECT [[counted]], [[correct]], SUM([[n]]) AS [[n]] FROM ` + schema.TrustCountsTable + `
		WHERE [[organization]] = {:org} AND [[client]] = {:client} AND [[day]] >= {:since} AND [[confidence]] >= {:min}` + template + `
		GROUP BY [[counted]], [[correct]]`).Bind(params).All(&out)
	if err != nil {
		return nil, fmt.Errorf("trust counters of client %s: %w", scope.Client, err)
	}
	groups := make([]enrichment.TrustCount, len(out))
	for i, g := range out {
		groups[i] = enrichment.TrustCount{Counted: g.Counted, Right: g.Right, N: g.N}
	}
	return groups, nil
}

// supersededMaskSQL is the mask of places in EnrichableFields a revision
// r lists in supersededFields.
var supersededMaskSQL = func() string {
	cases := ""
	for i, name := range enrichment.EnrichableFields {
		cases += fmt.Sprintf(" WHEN '%s' THEN %d", name, 1<<i)
	}
	return `(SELECT COALESCE(SUM(CASE s.[[value]]` + cases + ` ELSE 0 END), 0)
		FROM json_each(CASE WHEN json_valid(r.[[supersededFields]]) THEN r.[[supersededFields]] ELSE '[]' END) s)`
}()

// recountTrust rebuilds org's trust counters from the revisions people
// decided and the audits they closed (the template is the product's as it
// is now), as enrichment.CountedFields counts them.
func (s *Trust) recountTrust(org enrichment.Org) error {
	if _, err := s.db().Delete(schema.TrustCountsTable, dbx.HashExp{"organization": string(org)}).Execute(); err != nil {
		return fmt.Errorf("forget the trust counters of organization %s: %w", org, err)
	}
	counted := `(r.[[decisionMask]] & 31) & ~` + supersededMaskSQL
	common := `r.[[organization]], r.[[apiClient]] AS client, COALESCE(p.[[attributeTemplate]], '') AS template,
		CASE WHEN r.[[confidenceBand]] = '' THEN -1 ELSE r.[[confidence]] END AS confidence`
	_, err := s.db().NewQuery(`INSERT INTO ` + schema.TrustCountsTable + ` (organization, client, template, confidence, day, counted, correct, n)
		SELECT [[organization]], [[client]], [[template]], [[confidence]], [[day]], [[counted]], [[correct]], COUNT(*) FROM (
			SELECT ` + common + `, strftime('%Y-%m-%d', r.[[reviewedAt]]) AS day, ` + counted + ` AS counted,
				((r.[[decisionMask]] >> 5) & 31) & ~((r.[[decisionMask]] >> 10) & 31) & ` + counted + ` AS correct
			FROM {{revisions}} r LEFT JOIN {{products}} p ON p.[[id]] = r.[[product]]
			WHERE r.[[organization]] = {:org} AND r.[[decidedBy]] = 'reviewer' AND r.[[reviewedAt]] != ''
			UNION ALL
			SELECT ` + common + `, strftime('%Y-%m-%d', r.[[auditedAt]]), ` + counted + `,
				CASE WHEN r.[[audit]] = 'confirmed' THEN ` + counted + ` ELSE 0 END
			FROM {{revisions}} r LEFT JOIN {{products}} p ON p.[[id]] = r.[[product]]
			WHERE r.[[organization]] = {:org} AND r.[[decidedBy]] = 'policy' AND r.[[audit]] IN ('confirmed', 'reverted') AND r.[[auditedAt]] != ''
		) GROUP BY 1, 2, 3, 4, 5, 6, 7`).Bind(dbx.Params{"org": string(org)}).Execute()
	if err != nil {
		return fmt.Errorf("count the decisions of organization %s for the trust policies: %w", org, err)
	}
	return nil
}

// CountAudit counts a closed audit of org's revision for the trust
// policies' measurement, in the caller's transaction: its counted fields
// right when confirmed, wrong when reverted, on the day at.
func (s *Trust) CountAudit(org enrichment.Org, revision string, confirmed bool, at time.Time) error {
	var row struct {
		Client     string        `db:"apiClient"`
		Template   string        `db:"template"`
		Band       string        `db:"confidenceBand"`
		Confidence int           `db:"confidence"`
		Mask       int           `db:"decisionMask"`
		Superseded types.JSONRaw `db:"supersededFields"`
	}
	err := s.db().NewQuery(`SELECT r.[[apiClient]], COALESCE(p.[[attributeTemplate]], '') AS [[template]], r.[[confidenceBand]],
		r.[[confidence]], r.[[decisionMask]], r.[[supersededFields]]
		FROM {{revisions}} r LEFT JOIN {{products}} p ON p.[[id]] = r.[[product]]
		WHERE r.[[id]] = {:id} AND r.[[organization]] = {:org}`).Bind(dbx.Params{"id": revision, "org": string(org)}).One(&row)
	if err != nil {
		return fmt.Errorf("read revision %s to count its audit: %w", revision, err)
	}
	confidence := enrichment.StatedConfidence(row.Confidence, row.Band)
	counted := enrichment.CountedFields(enrichment.FieldMask(row.Mask), decodeStrings(row.Superseded))
	right := 0
	if confirmed {
		right = counted
	}
	d := trustDeltas{}
	d.add(row.Client, row.Template, confidence, counted, right, at)
	return s.Trust().writeTrustDeltas(org, d)
}

// TrustCounter is one stored trust counter row, for checks against a
// recount.
type TrustCounter struct {
	Client, Template, Day string
	Confidence, Counted   int
	Right, N              int
}

// TrustCounters lists org's trust counters that count anything, in key order.
func (s *Trust) TrustCounters(org enrichment.Org) ([]TrustCounter, error) {
	var out []TrustCounter
	err := s.db().NewQuery(`SELECT [[client]] AS Client, [[template]] AS Template, [[day]] AS Day, [[confidence]] AS Confidence,
		[[counted]] AS Counted, [[correct]] AS Right, [[n]] AS N FROM ` + schema.TrustCountsTable + `
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
	// ActivatedAt is when the policy last became active: probation and
	// suspension count the audits closed since
	ActivatedAt types.DateTime
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
	ActivatedAt       types.DateTime `db:"activatedAt"`
}

func (r policyRow) policy() Policy {
	return Policy{ID: r.ID, Org: enrichment.Org(r.Org), Client: r.Client, Template: r.Template,
		TrustPolicy: enrichment.TrustPolicy{Fields: decodeStrings(r.Fields), MinConfidence: r.MinConfidence,
			TargetPrecision: r.TargetPrecision, MinReviewed: r.MinReviewed, AuditRate: r.AuditRate, Enabled: r.Enabled, State: r.State},
		MeasuredPrecision: r.MeasuredPrecision, MeasuredReviewed: r.MeasuredReviewed, EnabledAt: r.EnabledAt, ActivatedAt: r.ActivatedAt}
}

var policyColumns = []string{"id", "organization", "apiClient", "template", "fields", "minConfidence", "targetPrecision",
	"minReviewed", "auditRate", "enabled", "state", "measuredPrecision", "measuredReviewed", "enabledAt", "activatedAt"}

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

// maxClosedAudits bounds the closed audits read to judge a policy: the
// newest SuspensionWindow of every version it accepted from, many at once.
const maxClosedAudits = 20 * enrichment.SuspensionWindow

// modelVersionSQL reads a revision r's model name and version (” and ”
// without a model).
const modelVersionSQL = `COALESCE(CASE WHEN json_valid(r.[[model]]) THEN json_extract(r.[[model]], '$.name') END, '') AS [[name]],
	COALESCE(CASE WHEN json_valid(r.[[model]]) THEN json_extract(r.[[model]], '$.version') END, '') AS [[version]]`

// ClosedAudits are the audits of policy closed at or after since, newest
// first, with their revisions' model versions: what enrichment.Withdraws
// judges.
func (s *Trust) ClosedAudits(policy string, since time.Time) ([]enrichment.ClosedAudit, error) {
	var rows []struct {
		Name    string `db:"name"`
		Version string `db:"version"`
		Audit   string `db:"audit"`
	}
	err := s.db().NewQuery(`SELECT ` + modelVersionSQL + `, r.[[audit]] FROM {{revisions}} r INDEXED BY ` + schema.IdxRevisionsPolicyAudits + `
		WHERE r.[[policy]] = {:policy} AND r.[[audit]] IN ('confirmed', 'reverted') AND r.[[auditedAt]] >= {:since}
		ORDER BY r.[[auditedAt]] DESC, CAST(r.[[id]] AS INTEGER) DESC LIMIT {:n}`).
		Bind(dbx.Params{"policy": policy, "since": FormatTime(since), "n": maxClosedAudits}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("closed audits of trust policy %s: %w", policy, err)
	}
	out := make([]enrichment.ClosedAudit, len(rows))
	for i, r := range rows {
		out[i] = enrichment.ClosedAudit{Version: enrichment.ModelVersion{Name: r.Name, Version: r.Version},
			Confirmed: r.Audit == enrichment.AuditConfirmed}
	}
	return out, nil
}

// VersionTallies are p's figures per model version since it last became
// active: the revisions of each it accepted, their audits waiting (older
// ones included: they still wait for a person) and closed. Probation
// (enrichment.VersionTally) reads them.
func (s *Trust) VersionTallies(p Policy) (map[enrichment.ModelVersion]*enrichment.VersionTally, error) {
	var rows []struct {
		Name      string `db:"name"`
		Version   string `db:"version"`
		Accepted  int    `db:"accepted"`
		Waiting   int    `db:"waiting"`
		Closed    int    `db:"closed"`
		Confirmed int    `db:"confirmed"`
	}
	since := FormatTime(p.ActivatedAt.Time())
	err := s.db().NewQuery(`SELECT [[name]], [[version]], SUM([[accepted]]) AS [[accepted]], SUM([[waiting]]) AS [[waiting]],
			SUM([[closed]]) AS [[closed]], SUM([[confirmed]]) AS [[confirmed]] FROM (
		SELECT ` + modelVersionSQL + `, 1 AS [[accepted]], r.[[audit]] = 'pending' AS [[waiting]],
			r.[[audit]] IN ('confirmed', 'reverted') AND r.[[auditedAt]] >= {:since} AS [[closed]],
			r.[[audit]] = 'confirmed' AND r.[[auditedAt]] >= {:since} AS [[confirmed]]
		FROM {{revisions}} r INDEXED BY ` + schema.IdxRevisionsPolicyDecided + `
		WHERE r.[[policy]] = {:policy} AND r.[[policy]] != '' AND r.[[reviewedAt]] >= {:since}
		UNION ALL
		SELECT ` + modelVersionSQL + `, 0, 1, 0, 0 FROM {{revisions}} r INDEXED BY ` + schema.IdxRevisionsAudit + `
		WHERE r.[[organization]] = {:org} AND r.[[audit]] != '' AND r.[[audit]] = 'pending' AND r.[[policy]] = {:policy}
			AND r.[[reviewedAt]] < {:since}
	) GROUP BY 1, 2`).Bind(dbx.Params{"policy": p.ID, "org": string(p.Org), "since": since}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("model versions of trust policy %s: %w", p.ID, err)
	}
	out := make(map[enrichment.ModelVersion]*enrichment.VersionTally, len(rows))
	for _, r := range rows {
		out[enrichment.ModelVersion{Name: r.Name, Version: r.Version}] = &enrichment.VersionTally{
			Accepted: r.Accepted, Waiting: r.Waiting, Closed: r.Closed, Confirmed: r.Confirmed}
	}
	return out, nil
}
