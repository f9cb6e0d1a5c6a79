package store

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	validation "github.com/pocketbase/ozzo-validation/v4"
)

// What a decision reads beside its revisions and products (store/decide_set.go),
// and its refusals that come from the product.

// reviewPolicy is org's review policy, as enrichment.Decide applies it.
func (s *Review) reviewPolicy(org enrichment.Org) (enrichment.ReviewPolicy, error) {
	var row struct {
		TTL           int  `db:"proposalTtlDays"`
		RequireReason bool `db:"requireReason"`
	}
	err := s.db().Select("proposalTtlDays", "requireReason").From(schema.Organizations).
		Where(dbx.HashExp{"id": string(org)}).One(&row)
	if err != nil {
		return enrichment.ReviewPolicy{}, fmt.Errorf("review policy of organization %s: %w", org, err)
	}
	return enrichment.ReviewPolicy{TTLDays: row.TTL, RequireReason: row.RequireReason}, nil
}

// productGone refuses to apply a decision to a product that no longer
// exists or is inactive.
func productGone() error {
	return enrichment.Invalid("product", "validation_product_gone",
		"The product of this revision no longer exists or is inactive; it can only be rejected.",
		"The product no longer exists or is inactive.")
}

// cannotApply refuses a decision whose values the product cannot store.
func cannotApply(invalid validation.Errors) error {
	e := enrichment.Invalid("product", "validation_cannot_apply",
		"The approved fields cannot be applied to the product.", "The product cannot store the approved fields.")
	e.Details = invalid
	return e
}

// templateOptionIDs maps the attribute names of org's template to their
// option ids; empty when template is "".
func (s *Review) templateOptionIDs(org enrichment.Org, template string) (map[string]int64, error) {
	out := map[string]int64{}
	if template == "" {
		return out, nil
	}
	var rows []struct {
		ID        string `db:"id"`
		Attribute string `db:"attribute"`
	}
	err := s.db().Select("id", "attribute").From(schema.AttributeOptions).
		Where(dbx.HashExp{"organization": string(org), "template": template}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("options of template %s of organization %s: %w", template, org, err)
	}
	for _, r := range rows {
		out[r.Attribute] = sqlparts.StoredID(r.ID)
	}
	return out, nil
}
