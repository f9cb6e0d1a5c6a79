package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	validation "github.com/pocketbase/ozzo-validation/v4"
)

// The review decision: hooks/revisions.go decides when (a revision record is
// saved), enrichment.Decide what is allowed, these functions the reading and
// writing. Call them on a store bound to the transaction that saves the
// revision.

// ReviewedRevision is a stored revision under review: what the rules need
// of it (enrichment.Decide) and where it is stored.
type ReviewedRevision struct {
	ID      string
	Org     enrichment.Org
	Product string // "" once the product was deleted
	enrichment.UnderReview
}

// Decide checks d against the stored revision under its organization's
// review policy (enrichment.Decide) and, when it accepts, applies the
// approved fields and attributes to the product, corrected where the
// reviewer corrected them. It returns what was applied and whether d
// decided anything.
func (s *Store) Decide(rev ReviewedRevision, d enrichment.Decision, now time.Time) (applied enrichment.Applied, decided bool, err error) {
	policy, err := s.reviewPolicy(rev.Org)
	if err != nil {
		return applied, false, err
	}
	if len(d.Corrections) > 0 && rev.Product != "" {
		if rev.Options, err = s.productOptions(rev.Org, rev.Product); err != nil {
			return applied, false, err
		}
	}
	applied, decided, err = enrichment.Decide(rev.UnderReview, d, policy, now)
	if err != nil || len(applied.Fields) == 0 {
		return applied, decided, err
	}
	if err := s.applyToProduct(rev.Org, rev.ID, rev.Product, applied); err != nil {
		return enrichment.Applied{}, false, fmt.Errorf("revision %s: %w", rev.ID, err)
	}
	return applied, true, nil
}

// productOptions are the options of the attribute template of org's
// product, as the checks see them; none without a template.
func (s *Store) productOptions(org enrichment.Org, product string) ([]enrichment.CheckOption, error) {
	var template string
	err := s.db().Select("attributeTemplate").From(schema.Products).
		Where(dbx.HashExp{"id": product, "organization": string(org)}).Row(&template)
	if errors.Is(err, sql.ErrNoRows) || template == "" {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("template of product %s: %w", product, err)
	}
	options, err := s.templateOptions(org)
	if err != nil {
		return nil, err
	}
	return options[template], nil
}

func (s *Store) reviewPolicy(org enrichment.Org) (enrichment.ReviewPolicy, error) {
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

// applyToProduct applies what a decision on revision applies to org's
// product, as a set of decisions does (store/decide_set.go): checked
// against the products collection's field rules, written with a new
// update time (the change feed, the generation), the accepted values
// remembered for the catalog import (store/enrichments.go).
func (s *Store) applyToProduct(org enrichment.Org, revision, productID string, applied enrichment.Applied) error {
	products, err := s.readProducts(org, []string{productID})
	if err != nil {
		return err
	}
	p := products[productID]
	if p == nil || !p.Active {
		return productGone()
	}
	edits, err := s.newProductEdits(org, []string{productID})
	if err != nil {
		return err
	}
	defer edits.close()
	if err := edits.apply(revision, p, applied); err != nil {
		return err
	}
	return edits.write()
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
func (s *Store) templateOptionIDs(org enrichment.Org, template string) (map[string]int64, error) {
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
		out[r.Attribute] = storedID(r.ID)
	}
	return out, nil
}
