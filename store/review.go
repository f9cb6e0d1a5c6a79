package store

import (
	"database/sql"
	"encoding/json/v2"
	"errors"
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
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
	if err := s.applyToProduct(rev.Org, rev.ID, rev.Product, applied.Values, applied.Fields); err != nil {
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

// applyToProduct writes the named fields of values to org's product and
// saves it as a record, so its validation, its update time and its hooks
// apply as to any other change. The values revision set are remembered for
// the catalog import (store/enrichments.go).
func (s *Store) applyToProduct(org enrichment.Org, revision, productID string, values enrichment.Fields, fields []string) error {
	proposed := values
	product, err := s.app.FindRecordById(schema.Products, productID)
	if err != nil || product.GetString("organization") != string(org) || !product.GetBool("active") {
		return enrichment.Invalid("product", "validation_product_gone",
			"The product of this revision no longer exists or is inactive; it can only be rejected.",
			"The product no longer exists or is inactive.")
	}
	for _, name := range fields {
		switch name {
		case "name":
			product.Set("name", *proposed.Name)
		case "slug":
			product.Set("slug", *proposed.Slug)
		case "description":
			product.Set("description", *proposed.Description)
		case "files":
			product.Set("files", *proposed.Files)
		case "attributes":
			if err := s.mergeAttributes(org, product, *proposed.Attributes); err != nil {
				return err
			}
		}
	}
	if err := s.app.Save(product); err != nil {
		var invalid validation.Errors
		if errors.As(err, &invalid) {
			e := enrichment.Invalid("product", "validation_cannot_apply",
				"The approved fields cannot be applied to the product.", "The product cannot store the approved fields.")
			e.Details = invalid
			return e
		}
		return fmt.Errorf("save product %s: %w", product.Id, err)
	}
	return s.rememberAccepted(org, revision, product, fields)
}

// mergeAttributes replaces or adds the proposed attributes by attribute name
// in product's list. An attribute linked to a template option keeps that
// link; an unlinked one takes the proposed option (when it is one of the
// organization's) or else the option of the product's template with its name.
func (s *Store) mergeAttributes(org enrichment.Org, product *core.Record, proposed []enrichment.StoredAttribute) error {
	attrs := []enrichment.StoredAttribute{}
	if raw := product.GetString("attributes"); raw != "" && raw != "null" {
		if err := json.Unmarshal([]byte(raw), &attrs); err != nil {
			return fmt.Errorf("decode attributes of product %s: %w", product.Id, err)
		}
	}
	byName, err := s.templateOptionIDs(org, product.GetString("attributeTemplate"))
	if err != nil {
		return err
	}
	known, err := s.optionRefs(org, unique(appendOptionIDs(nil, proposed)))
	if err != nil {
		return err
	}
	link := func(current int64, p enrichment.StoredAttribute) int64 {
		if current != 0 {
			return current
		}
		if _, ok := known[p.OptionID]; ok {
			return p.OptionID
		}
		return byName[p.Attribute]
	}
	for _, p := range proposed {
		found := false
		for i := range attrs {
			if attrs[i].Attribute == p.Attribute {
				attrs[i].Detail = p.Detail
				attrs[i].OptionID = link(attrs[i].OptionID, p)
				found = true
			}
		}
		if !found {
			attrs = append(attrs, enrichment.StoredAttribute{Attribute: p.Attribute, Detail: p.Detail, OptionID: link(0, p)})
		}
	}
	raw, err := json.Marshal(attrs)
	if err != nil {
		return fmt.Errorf("encode attributes of product %s: %w", product.Id, err)
	}
	product.Set("attributes", types.JSONRaw(raw))
	return nil
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
