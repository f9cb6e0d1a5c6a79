package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// checkProposals runs the checks (enrichment/checks.go) on a batch's
// proposals, inside the submission's pass: every item's slug on its own,
// and the items that match one product against that product and the
// options of its attribute template. The options come from the
// organization's cache; the slugs other products have, from one indexed
// query per batch. Each proposal's Issues end up with the checks' findings
// first and those of its sources (found when it was read) after.
func (s *Proposals) checkProposals(org enrichment.Org, proposals []enrichment.Proposal, matches map[string][]submissionProduct) error {
	var slugs []string
	for i := range proposals {
		p := &proposals[i]
		issues := enrichment.CheckSlug(p)
		p.Issues = append(issues, p.Issues...)
		if p.Fields.Slug != nil && len(matches[p.SKU]) == 1 {
			slugs = append(slugs, *p.Fields.Slug)
		}
	}
	owners, err := s.slugOwners(org, slugs)
	if err != nil {
		return err
	}
	options, err := s.templateOptions(org)
	if err != nil {
		return err
	}
	for i := range proposals {
		p := &proposals[i]
		found := matches[p.SKU]
		if len(found) != 1 {
			continue
		}
		product := found[0]
		c := enrichment.CheckProduct{Name: product.Name, Slug: product.Slug, Description: product.Description,
			Options: options[product.AttributeTemplate]}
		if p.Fields.Slug != nil {
			for _, id := range owners[*p.Fields.Slug] {
				c.SlugInUse = c.SlugInUse || id != product.ID
			}
		}
		if p.Fields.Attributes != nil && mayHold(product.Attributes, *p.Fields.Attributes) {
			c.Attributes = decodeAttributes(product.Attributes)
		}
		if p.Fields.Files != nil {
			c.Files = decodeStrings(product.Files)
		}
		checked := enrichment.CheckProposal(p, c)
		// after the slug's own check (first, when there is one), before the sources'
		n := 0
		if len(p.Issues) > 0 && p.Issues[0].Code == enrichment.IssueInvalidSlug {
			n = 1
		}
		p.Issues = slices.Concat(p.Issues[:n], checked, p.Issues[n:])
	}
	for i := range proposals {
		p := &proposals[i]
		enrichment.DropUnsupportedSources(p)
		if len(p.Issues) > enrichment.MaxIssuesPerItem {
			p.Issues = p.Issues[:enrichment.MaxIssuesPerItem]
		}
	}
	return nil
}

// mayHold reports whether a product's stored attributes (raw JSON) could
// hold a value that one of attrs equals, as sent or as a check may
// normalize it (the number before a unit, true or false): only then are
// they decoded for the unchanged check, which was most of the checks' cost.
// A value JSON would escape is assumed to be there.
func mayHold(raw []byte, attrs []enrichment.StoredAttribute) bool {
	for _, a := range attrs {
		values := []string{a.Detail}
		if number, _, ok := strings.Cut(a.Detail, " "); ok {
			values = append(values, number)
		}
		if v, code := enrichment.CheckBoolean(a.Detail); code != enrichment.IssueNotABoolean {
			values = append(values, v)
		}
		for _, v := range values {
			if escaped(v) || bytes.Contains(raw, []byte(`"`+v+`"`)) {
				return true
			}
		}
	}
	return false
}

// escaped reports whether a Go JSON encoder could spell s other than as
// it is (quotes, backslashes, controls, HTML's <>&, U+2028, U+2029, bytes
// that are not UTF-8); other text is written as it is.
func escaped(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == '"' || r == '\\' || r == '<' || r == '>' || r == '&' || r == 0x7f ||
			r == '\u2028' || r == '\u2029' || r == utf8.RuneError {
			return true
		}
	}
	return false
}

// slugOwners maps each of slugs that products of org have to their ids, in
// one query on the products' slug index.
func (s *Proposals) slugOwners(org enrichment.Org, slugs []string) (map[string][]string, error) {
	out := map[string][]string{}
	if len(slugs) == 0 {
		return out, nil
	}
	var rows []struct {
		ID   string `db:"id"`
		Slug string `db:"slug"`
	}
	err := s.db().NewQuery(`SELECT [[id]], [[slug]] FROM {{products}} INDEXED BY ` + schema.IdxProductsSlug + `
		WHERE [[organization]] = {:org} AND [[slug]] != '' AND ` + sqlparts.InList("slug", "slugs")).
		Bind(dbx.Params{"org": string(org), "slugs": sqlparts.InValues(unique(slugs))}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("find the slugs of organization %s: %w", org, err)
	}
	for _, r := range rows {
		out[r.Slug] = append(out[r.Slug], r.ID)
	}
	return out, nil
}

// checkOptionsCache keeps every attribute option of an organization by
// template id, as the checks see them.
var checkOptionsCache = cacheKind[enrichment.Org, map[string][]enrichment.CheckOption]{name: "enrichmentCheckOptions", limit: 1_000}

// templateOptions is every attribute option of org by template id, as the
// checks see them: from the cache while org's generation holds (every
// change of an option moves it).
func (s *Proposals) templateOptions(org enrichment.Org) (map[string][]enrichment.CheckOption, error) {
	return cachedOf(s, checkOptionsCache, org, org, func() (map[string][]enrichment.CheckOption, error) {
		var rows []optionRow
		err := s.db().Select(optionColumns...).From(schema.AttributeOptions).
			Where(dbx.HashExp{"organization": string(org)}).
			OrderBy("priority", "CAST(id AS INTEGER)").All(&rows)
		if err != nil {
			return nil, fmt.Errorf("load attribute options of organization %s: %w", org, err)
		}
		out := map[string][]enrichment.CheckOption{}
		for _, r := range rows {
			out[r.Template] = append(out[r.Template], enrichment.CheckOption{ID: sqlparts.StoredID(r.ID), Name: r.Attribute,
				Unit: r.Unit, DataType: r.DataType})
		}
		return out, nil
	})
}
