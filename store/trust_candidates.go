package store

import (
	"encoding/json/v2"
	"fmt"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// The revisions a trust policy may accept: its client's pending ones, read
// in id order from a cursor, with what enrichment.Qualifies needs to know
// (the product's template, the issues, whether another client competes
// for one of the same fields of the same product).

// candidateRow is a pending revision as the acting rule reads it.
type candidateRow struct {
	ID         string        `db:"id"`
	Confidence int           `db:"confidence"`
	Band       string        `db:"confidenceBand"`
	Template   string        `db:"template"`
	Proposed   types.JSONRaw `db:"proposed"`
	Issues     int           `db:"issues"`
	Competing  bool          `db:"competing"`
	Model      types.JSONRaw `db:"model"`
}

// Qualifying is a pending revision a policy accepts, with its model
// version (whose probation may still hold it back).
type Qualifying struct {
	ID      string
	Version enrichment.ModelVersion
}

// candidateSQL selects a client's pending revisions with the facts of the
// acting rule; the caller adds the rest of the WHERE clause.
// note: the competition test joins the two proposals' keys, so only fields
// both propose (with a value) count
var candidateSQL = `SELECT r.[[id]], r.[[confidence]], r.[[confidenceBand]], r.[[model]], COALESCE(p.[[attributeTemplate]], '') AS [[template]],
	r.[[proposed]], COALESCE(CASE WHEN json_valid(r.[[issues]]) THEN json_array_length(r.[[issues]]) END, 0) AS [[issues]],
	EXISTS (SELECT 1 FROM {{revisions}} o INDEXED BY ` + schema.IdxRevisionsProduct + `
		WHERE o.[[product]] = r.[[product]] AND o.[[status]] = 'pending' AND o.[[apiClient]] != r.[[apiClient]]
		AND o.[[organization]] = r.[[organization]]
		AND EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(o.[[proposed]]) THEN o.[[proposed]] ELSE '{}' END) a,
			json_each(CASE WHEN json_valid(r.[[proposed]]) THEN r.[[proposed]] ELSE '{}' END) b
			WHERE a.key = b.key AND a.type != 'null' AND b.type != 'null')) AS [[competing]]
	FROM {{revisions}} r LEFT JOIN {{products}} p ON p.[[id]] = r.[[product]]
	WHERE r.[[organization]] = {:org} AND r.[[apiClient]] = {:client} AND r.[[status]] = 'pending'
	AND r.[[confidenceBand]] != '' AND r.[[confidence]] >= {:min} `

// Candidates reads up to limit of p's client's pending revisions with an
// id above after, in id order, and returns the ids of those p accepts, the
// last id read (after, when none was) and how many it read.
func (s *Trust) Candidates(p Policy, after int64, limit int) (accept []string, last int64, read int, err error) {
	var rows []candidateRow
	err = s.db().NewQuery(candidateSQL + `AND CAST(r.[[id]] AS INTEGER) > {:after} ORDER BY CAST(r.[[id]] AS INTEGER) LIMIT {:limit}`).
		Bind(dbx.Params{"org": string(p.Org), "client": p.Client, "min": p.MinConfidence, "after": after, "limit": limit}).All(&rows)
	if err != nil {
		return nil, after, 0, fmt.Errorf("pending revisions for trust policy %s: %w", p.ID, err)
	}
	last = after
	for _, r := range rows {
		last = sqlparts.StoredID(r.ID)
		if qualifies(p, r) {
			accept = append(accept, r.ID)
		}
	}
	return accept, last, len(rows), nil
}

// StillQualifying returns those of ids (pending revisions of p's client)
// that p accepts now, in the order given, with their model versions: the
// check made again in the transaction that accepts them.
func (s *Trust) StillQualifying(p Policy, ids []string) ([]Qualifying, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	in := make([]string, len(ids))
	params := dbx.Params{"org": string(p.Org), "client": p.Client, "min": p.MinConfidence}
	for i, id := range ids {
		name := fmt.Sprintf("id%d", i)
		in[i], params[name] = "{:"+name+"}", id
	}
	var rows []candidateRow
	err := s.db().NewQuery(candidateSQL + `AND r.[[id]] IN (` + strings.Join(in, ", ") + `)`).Bind(params).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("check revisions for trust policy %s: %w", p.ID, err)
	}
	ok := make(map[string]enrichment.ModelVersion, len(rows))
	for _, r := range rows {
		if qualifies(p, r) {
			ok[r.ID] = versionOf(r.Model)
		}
	}
	var out []Qualifying
	for _, id := range ids {
		if v, found := ok[id]; found {
			out = append(out, Qualifying{ID: id, Version: v})
		}
	}
	return out, nil
}

// qualifies applies the acting rule to a row.
func qualifies(p Policy, r candidateRow) bool {
	var proposed enrichment.Fields
	if len(r.Proposed) > 0 && json.Unmarshal(r.Proposed, &proposed) != nil {
		return false
	}
	c := enrichment.Candidate{Template: r.Template, Proposed: proposed.Names(), Issues: r.Issues, Competing: r.Competing,
		PolicyFields: p.Fields, MinConfidence: p.MinConfidence, PolicyTemplate: p.Template,
		Confidence: enrichment.StatedConfidence(r.Confidence, r.Band)}
	ok, _ := enrichment.Qualifies(c)
	return ok
}

// versionOf is the model version of a stored model (none when absent).
func versionOf(raw types.JSONRaw) enrichment.ModelVersion {
	key := storedModel(raw)
	return enrichment.ModelVersion{Name: key.name, Version: key.version}
}
