package store

import (
	"encoding/json/v2"
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/pocketbase/dbx"
)

type optionRow struct {
	ID            string `db:"id"`
	Template      string `db:"template"`
	Attribute     string `db:"attribute"`
	Unit          string `db:"unit"`
	Priority      int    `db:"priority"`
	DataType      string `db:"dataType"`
	ShowOnWebsite bool   `db:"showOnWebsite"`
	IsSearchable  bool   `db:"isSearchable"`
}

var optionColumns = []string{"id", "template", "attribute", "unit", "priority", "dataType", "showOnWebsite", "isSearchable"}

func (r optionRow) option() enrichment.Option {
	return enrichment.Option{
		ID:            sqlparts.StoredID(r.ID),
		Attribute:     r.Attribute,
		Unit:          nullIfEmpty(r.Unit),
		Priority:      r.Priority,
		DataType:      nullIfEmpty(r.DataType),
		ShowOnWebsite: r.ShowOnWebsite,
		IsSearchable:  r.IsSearchable,
	}
}

// templatesCache keeps each organization's attribute-templates answer,
// encoded: templates change rarely and are asked for often.
var templatesCache = cacheKind[enrichment.Org, []byte]{name: "enrichmentTemplates", limit: 1_000}

// TemplatesJSON is Templates(org) encoded as the API answers it, cached
// while org's generation holds.
func (s *Catalog) TemplatesJSON(org enrichment.Org) ([]byte, error) {
	return cachedOf(s, templatesCache, org, org, func() ([]byte, error) {
		templates, err := s.Templates(org)
		if err != nil {
			return nil, err
		}
		body, err := json.Marshal(templates)
		if err != nil {
			return nil, fmt.Errorf("encode attribute templates of organization %s: %w", org, err)
		}
		return body, nil
	})
}

// Templates returns org's active attribute templates in numeric id order,
// each with its options by priority: two queries whatever their number.
func (s *Catalog) Templates(org enrichment.Org) ([]enrichment.Template, error) {
	var rows []struct {
		ID   string `db:"id"`
		Name string `db:"name"`
	}
	err := s.db().Select("id", "name").From("attribute_templates").
		Where(dbx.HashExp{"organization": string(org), "active": true}).
		OrderBy("CAST(id AS INTEGER)").All(&rows)
	if err != nil {
		return nil, fmt.Errorf("list templates of organization %s: %w", org, err)
	}
	out := make([]enrichment.Template, len(rows))
	if len(rows) == 0 {
		return out, nil
	}

	ids := make([]string, len(rows))
	index := make(map[string]int, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
		index[r.ID] = i
		out[i] = enrichment.Template{ID: sqlparts.StoredID(r.ID), Name: r.Name, Options: []enrichment.Option{}}
	}
	var options []optionRow
	err = s.db().Select(optionColumns...).From("attribute_options").
		Where(dbx.HashExp{"organization": string(org)}).
		AndWhere(sqlparts.In("template", ids)).
		OrderBy("priority", "CAST(id AS INTEGER)").All(&options)
	if err != nil {
		return nil, fmt.Errorf("list template options of organization %s: %w", org, err)
	}
	for _, o := range options {
		t := &out[index[o.Template]]
		t.Options = append(t.Options, o.option())
	}
	return out, nil
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
