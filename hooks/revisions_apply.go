package hooks

import (
	"encoding/json/v2"
	"errors"
	"fmt"
	"slices"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
	"github.com/pocketbase/pocketbase/tools/types"
)

// accept applies the approved fields of the stored revision rev (every
// proposed field when approved is empty) to its product and saves the
// product; it returns the fields applied, in API order.
func accept(app core.App, rev *core.Record, approved []string) ([]string, error) {
	var proposed enrichment.Fields
	if err := decodeJSON(rev, "proposed", &proposed); err != nil {
		return nil, err
	}
	for _, name := range approved {
		if !proposed.Has(name) {
			return nil, badRequest(fmt.Sprintf("Approved field %q was not proposed.", name),
				"approvedFields", "validation_not_proposed", fmt.Sprintf("%q was not proposed.", name))
		}
	}
	var applied []string
	for _, name := range proposed.Names() {
		if len(approved) == 0 || slices.Contains(approved, name) {
			applied = append(applied, name)
		}
	}
	if len(applied) == 0 {
		return nil, badRequest("This revision proposes no fields; it can only be rejected.",
			"status", "validation_nothing_proposed", "Nothing to accept.")
	}

	product, err := app.FindRecordById("products", rev.GetString("product"))
	if err != nil || product.GetString("organization") != rev.GetString("organization") || !product.GetBool("active") {
		return nil, badRequest("The product of this revision no longer exists or is inactive; it can only be rejected.",
			"product", "validation_product_gone", "The product no longer exists or is inactive.")
	}
	for _, name := range applied {
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
			if err := mergeAttributes(app, product, *proposed.Attributes); err != nil {
				return nil, err
			}
		}
	}
	if err := app.Save(product); err != nil {
		var invalid validation.Errors
		if errors.As(err, &invalid) {
			return nil, router.NewBadRequestError("The approved fields cannot be applied to the product.",
				validation.Errors{"product": invalid})
		}
		return nil, fmt.Errorf("save product %s for revision %s: %w", product.Id, rev.Id, err)
	}
	return applied, nil
}

// mergeAttributes replaces or adds the proposed attributes by attribute name
// in product's list. An attribute linked to a template option keeps that
// link; an unlinked one takes the proposed option (when it is one of the
// organization's) or else the option of the product's template with its name.
func mergeAttributes(app core.App, product *core.Record, proposed []enrichment.StoredAttribute) error {
	attrs := []enrichment.StoredAttribute{}
	if err := decodeJSON(product, "attributes", &attrs); err != nil {
		return err
	}
	byName, known, err := optionLinks(app, product, proposed)
	if err != nil {
		return err
	}
	link := func(current int64, p enrichment.StoredAttribute) int64 {
		switch {
		case current != 0:
			return current
		case p.OptionID != 0 && known[p.OptionID]:
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
		return err
	}
	product.Set("attributes", types.JSONRaw(raw))
	return nil
}

// decodeJSON reads a JSON field of rec into v; an empty value leaves v as is.
func decodeJSON(rec *core.Record, field string, v any) error {
	switch raw := rec.GetString(field); raw {
	case "", "null", `""`:
		return nil
	default:
		if err := json.Unmarshal([]byte(raw), v); err != nil {
			return fmt.Errorf("decode %s of %s %s: %w", field, rec.Collection().Name, rec.Id, err)
		}
		return nil
	}
}

// optionLinks returns the options of product's template by attribute name,
// and which of the proposed option ids are options of product's organization.
func optionLinks(app core.App, product *core.Record, proposed []enrichment.StoredAttribute) (map[string]int64, map[int64]bool, error) {
	org := product.GetString("organization")
	var rows []struct {
		ID        string `db:"id"`
		Attribute string `db:"attribute"`
	}
	byName := map[string]int64{}
	if tpl := product.GetString("attributeTemplate"); tpl != "" {
		err := app.DB().Select("id", "attribute").From("attribute_options").
			Where(dbx.HashExp{"organization": org, "template": tpl}).All(&rows)
		if err != nil {
			return nil, nil, fmt.Errorf("options of template %s: %w", tpl, err)
		}
		for _, r := range rows {
			byName[r.Attribute] = store.ParseID(r.ID)
		}
	}

	var ids []any
	for _, p := range proposed {
		if p.OptionID != 0 {
			ids = append(ids, store.FormatID(p.OptionID))
		}
	}
	known := map[int64]bool{}
	if len(ids) == 0 {
		return byName, known, nil
	}
	var found []string
	err := app.DB().Select("id").From("attribute_options").
		Where(dbx.HashExp{"organization": org, "id": ids}).Column(&found)
	if err != nil {
		return nil, nil, fmt.Errorf("proposed options: %w", err)
	}
	for _, id := range found {
		known[store.ParseID(id)] = true
	}
	return byName, known, nil
}
