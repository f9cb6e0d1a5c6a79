package store

import (
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// Triage narrows the queue (docs/review.md): each filter set is one more
// condition, and they combine. The conditions read a revision's row, or
// its product's, for the revisions the queue's index leaves after its own
// filters.
type Triage struct {
	// Field keeps revisions that propose this field (name, slug,
	// description, attributes, files) or attribute ("attributes.NAME"),
	// still pending (not superseded); "" for any.
	Field     string
	Brand     int64  // 0: any; else the products' brand id
	Category  string // "": any; else a category of the product (letter case aside)
	Competing *bool  // nil: any; true: another client has a pending revision for the product; false: none has
	OlderThan int    // 0: any; else submitted at least this many days before Now
	Issues    *bool  // nil: any; true: the checks found an issue; false: none
	Text      string // "": any; else found in the SKU or the product's name, letter case aside
	// Model keeps revisions of this model name; ModelVersion those of this
	// model version (of any name unless Model is set); "": any
	Model, ModelVersion string
}

// validJSON is a JSON column read as a list, '[]' when empty or not JSON
// (json_each refuses text that is not JSON).
func validJSON(column string) string {
	return "CASE WHEN json_valid(" + column + ") THEN " + column + " ELSE '[]' END"
}

// revisionsCol names a column of the queue's revision from a subquery.
func revisionsCol(name string) string {
	return "{{" + schema.Revisions + "}}.[[" + name + "]]"
}

// triageWhere appends the conditions of t to where, binding their values
// in params.
func triageWhere(t Triage, now time.Time, where []string, params dbx.Params) []string {
	// note: each revision's product is looked up by its id: the cost grows
	// with the queue, not with the catalog (finding the organization's
	// matching products first read every product of a 100,000-product
	// catalog, where 20,000 pending revisions cost 20,000 lookups)
	productHas := func(cond string) string {
		return `EXISTS (SELECT 1 FROM {{` + schema.Products + `}} AS tp WHERE tp.[[id]] = ` + revisionsCol("product") + ` AND ` + cond + `)`
	}
	if t.Field != "" {
		field, attr, isAttr := strings.Cut(t.Field, ".")
		params["triageField"] = field
		params["triageKey"] = `"` + field + `":`
		// note: instr first: the stored proposal is compact JSON whose only
		// unescaped "KEY": are its keys, so it rules out most rows without
		// parsing them; json_type then decides
		where = append(where, `instr([[proposed]], {:triageKey}) > 0`, `json_type([[proposed]], '$.' || {:triageField}) IS NOT NULL`,
			`NOT EXISTS (SELECT 1 FROM json_each(`+validJSON(revisionsCol("supersededFields"))+`) WHERE [[value]] = {:triageField})`)
		if isAttr {
			params["triageAttr"] = attr
			where = append(where, `EXISTS (SELECT 1 FROM json_each(`+validJSON(revisionsCol("proposed"))+`, '$.attributes') AS a
					WHERE json_extract(a.[[value]], '$.attribute') = {:triageAttr})`,
				`NOT EXISTS (SELECT 1 FROM json_each(`+validJSON(revisionsCol("supersededAttributes"))+`) WHERE [[value]] = {:triageAttr})`)
		}
	}
	if t.Brand != 0 {
		params["triageBrand"] = FormatID(t.Brand)
		where = append(where, productHas(`tp.[[brand]] = {:triageBrand}`))
	}
	if t.Category != "" {
		params["triageCategory"] = t.Category
		where = append(where, productHas(`EXISTS (SELECT 1 FROM json_each(`+validJSON("tp.[[categories]]")+`) AS tc
			WHERE tc.[[value]] = {:triageCategory} COLLATE NOCASE)`))
	}
	if t.Competing != nil {
		rival := `EXISTS (SELECT 1 FROM {{` + schema.Revisions + `}} AS o INDEXED BY ` + schema.IdxRevisionsProduct + `
			WHERE o.[[product]] = ` + revisionsCol("product") + ` AND o.[[status]] = 'pending'
			AND o.[[apiClient]] != ` + revisionsCol("apiClient") + ` AND o.[[organization]] = ` + revisionsCol("organization") + `)`
		if !*t.Competing {
			rival = "NOT " + rival
		}
		where = append(where, rival)
	}
	if t.OlderThan > 0 {
		params["triageBefore"] = FormatTime(now.AddDate(0, 0, -t.OlderThan))
		where = append(where, `[[created]] <= {:triageBefore}`)
	}
	if t.Issues != nil {
		issues := `(json_valid([[issues]]) AND json_array_length([[issues]]) > 0)`
		if !*t.Issues {
			issues = "NOT " + issues
		}
		where = append(where, issues)
	}
	for name, value := range map[string]string{"name": t.Model, "version": t.ModelVersion} {
		if value != "" {
			params["triageModel_"+name] = value
			where = append(where, `json_valid([[model]]) AND json_extract([[model]], '$.`+name+`') = {:triageModel_`+name+`}`)
		}
	}
	if t.Text != "" {
		params["triageText"] = "%" + likeEscaper.Replace(t.Text) + "%"
		where = append(where, `([[sku]] LIKE {:triageText} ESCAPE '\' OR `+productHas(`tp.[[name]] LIKE {:triageText} ESCAPE '\'`)+`)`)
	}
	return where
}

// claimItems sets the live claims at now on the queue's items, saying
// which are viewer's.
func (s *Review) claimItems(orgs []enrichment.Org, items []QueueItem, viewer string, now time.Time) error {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	claims, err := s.LiveClaims(orgs, ids, now)
	if err != nil {
		return err
	}
	for i := range items {
		if c, ok := claims[items[i].ID]; ok {
			items[i].Claim = &QueueClaim{Reviewer: c.Reviewer, Email: c.Email, Name: c.Name,
				ExpiresAt: c.ExpiresAt.UTC().Format(apiTimeLayout), Mine: viewer != "" && c.Reviewer == viewer}
		}
	}
	return nil
}
