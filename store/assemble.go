package store

import (
	"encoding/json/v2"
	"fmt"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// assemble turns product rows into the API's products with a fixed number of
// queries whatever the page size: one for the variants of the page's masters,
// one for the masters of its variants, one for brands, one for options.
func (s *Catalog) assemble(org enrichment.Org, rows []ProductRow) ([]enrichment.Product, error) {
	out := make([]enrichment.Product, len(rows))
	if len(rows) == 0 {
		return out, nil
	}

	var brandIDs, masterIDs, familyHeads []string
	for _, r := range rows {
		if r.Brand != "" {
			brandIDs = append(brandIDs, r.Brand)
		}
		if r.VariantMaster != "" {
			masterIDs = append(masterIDs, r.VariantMaster)
		} else {
			familyHeads = append(familyHeads, r.ID)
		}
	}

	// note: pages repeat brands and options heavily; each is asked for once
	brandIDs, masterIDs = unique(brandIDs), unique(masterIDs)

	variants, err := s.variantsOf(org, familyHeads)
	if err != nil {
		return nil, err
	}
	masterSKUs, err := s.skusByID(org, masterIDs)
	if err != nil {
		return nil, err
	}
	brands, err := s.brandsByID(org, brandIDs)
	if err != nil {
		return nil, err
	}

	// attributes of the page and of its masters' variants, decoded once
	stored := make([][]enrichment.StoredAttribute, len(rows))
	var optionIDs []int64
	for i, r := range rows {
		stored[i] = decodeAttributes(r.Attributes)
		optionIDs = appendOptionIDs(optionIDs, stored[i])
	}
	for _, family := range variants {
		for _, v := range family {
			optionIDs = appendOptionIDs(optionIDs, v.attributes)
		}
	}
	options, err := s.optionRefs(org, unique(optionIDs))
	if err != nil {
		return nil, err
	}

	for i, r := range rows {
		p := enrichment.Product{
			ID:          sqlparts.StoredID(r.ID),
			SKU:         r.SKU,
			ExternalID:  r.ExternalID,
			GTIN:        r.GTIN,
			Name:        r.Name,
			Slug:        r.Slug,
			Description: r.Description,
			Attributes:  apiAttributes(stored[i], options),
			Categories:  decodeStrings(r.Categories),
			Images:      decodeStrings(r.Images),
			Files:       decodeStrings(r.Files),
		}
		if r.AttributeTemplate != "" {
			id := sqlparts.StoredID(r.AttributeTemplate)
			p.AttributeTemplateID = &id
		}
		if b, ok := brands[r.Brand]; ok {
			p.Brand = &b
		}
		setFamily(&p, r, variants[r.ID], masterSKUs, options)
		out[i] = p
	}
	return out, s.completenessOf(org, rows, out)
}

// setFamily fills the variant fields: a variant names its master's SKU; a
// master (it lists variant attributes or has variants) gets both lists; a
// standalone product keeps all three null.
func setFamily(p *enrichment.Product, r ProductRow, family []variantRow, masterSKUs map[string]string, options map[int64]enrichment.OptionRef) {
	if r.VariantMaster != "" {
		sku := masterSKUs[r.VariantMaster]
		p.VariantMaster = &sku
		return
	}
	variantAttrs := decodeStrings(r.VariantAttributes)
	if len(variantAttrs) == 0 && len(family) == 0 {
		return
	}
	variants := make([]enrichment.Variant, len(family))
	for i, v := range family {
		variants[i] = enrichment.Variant{
			ID:         sqlparts.StoredID(v.ID),
			SKU:        v.SKU,
			Name:       v.Name,
			Attributes: apiAttributes(v.attributes, options),
		}
	}
	p.VariantAttributes = &variantAttrs
	p.Variants = &variants
}

type variantRow struct {
	ID            string `db:"id"`
	SKU           string `db:"sku"`
	Name          string `db:"name"`
	Attributes    []byte `db:"attributes"`
	VariantMaster string `db:"variantMaster"`
	attributes    []enrichment.StoredAttribute
}

func (r variantRow) recordID() string { return r.ID }

// variantsOf returns the active variants of the given masters, by master id.
func (s *Catalog) variantsOf(org enrichment.Org, masterIDs []string) (map[string][]variantRow, error) {
	out := map[string][]variantRow{}
	if len(masterIDs) == 0 {
		return out, nil
	}
	var rows []variantRow
	// note: the index is named because with a long IN list and sampled
	// statistics SQLite prefers the export index and scans the organization
	// (400 ms instead of 5 ms for a 500-product page of 100k)
	err := s.db().NewQuery(`SELECT [[id]], [[sku]], [[name]], [[attributes]], [[variantMaster]]
		FROM {{products}} INDEXED BY ` + schema.IdxProductsVariantMaster + `
		WHERE [[organization]] = {:org} AND [[active]] = 1 AND [[variantMaster]] != ''
		AND ` + sqlparts.InList("variantMaster", "masters")).
		Bind(dbx.Params{"org": string(org), "masters": sqlparts.InValues(masterIDs)}).
		All(&rows)
	if err != nil {
		return nil, fmt.Errorf("load variants: %w", err)
	}
	sortByID(rows)
	for _, r := range rows {
		r.attributes = decodeAttributes(r.Attributes)
		out[r.VariantMaster] = append(out[r.VariantMaster], r)
	}
	return out, nil
}

// skusByID maps product ids to SKUs, inactive products included.
func (s *Catalog) skusByID(org enrichment.Org, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID  string `db:"id"`
		SKU string `db:"sku"`
	}
	err := s.db().Select("id", "sku").From("products").
		Where(sqlparts.ByIDsOf(org)).
		AndWhere(sqlparts.In("id", ids)).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("load variant masters: %w", err)
	}
	for _, r := range rows {
		out[r.ID] = r.SKU
	}
	return out, nil
}

// brandsByID returns those of ids that are brands of org, from all of its
// brands (cached as its options are, see optionRefs).
func (s *Catalog) brandsByID(org enrichment.Org, ids []string) (map[string]enrichment.Brand, error) {
	return pickCached(s, brandsCache, org, ids, func() (map[string]enrichment.Brand, error) {
		return s.allBrands(org)
	})
}

// Every brand and every option of an organization, by id, as assembling
// products reads them.
var (
	brandsCache  = cacheKind[enrichment.Org, map[string]enrichment.Brand]{name: "enrichmentBrands", limit: 1_000}
	optionsCache = cacheKind[enrichment.Org, map[int64]enrichment.OptionRef]{name: "enrichmentOptions", limit: 1_000}
)

// pickCached returns those of ids found among all of org's rows that load
// reads, kept in the cache of kind; nothing is loaded for no ids.
func pickCached[K comparable, V any](a area, kind cacheKind[enrichment.Org, map[K]V], org enrichment.Org, ids []K, load func() (map[K]V, error)) (map[K]V, error) {
	s := a.shared()
	out := map[K]V{}
	if len(ids) == 0 {
		return out, nil
	}
	all, err := cachedOf(s, kind, org, org, load)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if v, ok := all[id]; ok {
			out[id] = v
		}
	}
	return out, nil
}

func (s *Catalog) allBrands(org enrichment.Org) (map[string]enrichment.Brand, error) {
	var rows []struct {
		ID      string `db:"id"`
		Name    string `db:"name"`
		Website string `db:"website"`
		Slug    string `db:"slug"`
	}
	err := s.db().Select("id", "name", "website", "slug").From("brands").
		Where(dbx.HashExp{"organization": string(org)}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("load brands of organization %s: %w", org, err)
	}
	all := make(map[string]enrichment.Brand, len(rows))
	for _, r := range rows {
		all[r.ID] = enrichment.Brand{ID: sqlparts.StoredID(r.ID), Name: r.Name, Website: r.Website, Slug: r.Slug}
	}
	return all, nil
}

// optionRefs returns those of ids that are template options of org. Outside
// a transaction they come from all of org's options, cached while its
// generation holds (every change of an option moves it): a page of
// products links to hundreds of options, and looking each up cost a lookup
// of 50 SKUs nearly half its time.
func (s *Catalog) optionRefs(org enrichment.Org, ids []int64) (map[int64]enrichment.OptionRef, error) {
	return pickCached(s, optionsCache, org, ids, func() (map[int64]enrichment.OptionRef, error) {
		return s.allOptionRefs(org)
	})
}

// allOptionRefs is every template option of org, by id.
func (s *Catalog) allOptionRefs(org enrichment.Org) (map[int64]enrichment.OptionRef, error) {
	var rows []optionRow
	err := s.db().Select(optionColumns...).From(schema.AttributeOptions).
		Where(dbx.HashExp{"organization": string(org)}).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("load attribute options of organization %s: %w", org, err)
	}
	all := make(map[int64]enrichment.OptionRef, len(rows))
	for _, r := range rows {
		o := r.option()
		all[o.ID] = enrichment.OptionRef{OptionID: o.ID, Unit: o.Unit, Priority: o.Priority,
			DataType: o.DataType, ShowOnWebsite: o.ShowOnWebsite}
	}
	return all, nil
}

// apiAttributes renders stored attributes, leaving out empty values and
// linking those whose option still exists.
func apiAttributes(stored []enrichment.StoredAttribute, options map[int64]enrichment.OptionRef) []enrichment.Attribute {
	out := make([]enrichment.Attribute, 0, len(stored))
	for _, a := range stored {
		if strings.TrimSpace(a.Detail) == "" {
			continue
		}
		attr := enrichment.Attribute{Attribute: a.Attribute, Detail: a.Detail}
		if ref, ok := options[a.OptionID]; ok {
			attr.Option = &ref
		}
		out = append(out, attr)
	}
	return out
}

func decodeAttributes(raw []byte) []enrichment.StoredAttribute {
	var out []enrichment.StoredAttribute
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &out)
	}
	return out
}

func appendOptionIDs(ids []int64, attrs []enrichment.StoredAttribute) []int64 {
	for _, a := range attrs {
		if a.OptionID != 0 {
			ids = append(ids, a.OptionID)
		}
	}
	return ids
}
