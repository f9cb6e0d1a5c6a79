// Package migrations creates the service's collections. Each change is a new
// file named <unix>_<what>.go; a released file is never edited.
package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// newNumericCollection returns a base collection whose record id is a decimal
// number (assigned by the create hook in hooks/ids.go) and which carries the
// created/updated timestamps that NewBaseCollection leaves out.
func newNumericCollection(name string) *core.Collection {
	c := core.NewBaseCollection(name)
	id := c.Fields.GetByName("id").(*core.TextField)
	id.Pattern = schema.NumericIDPattern
	id.AutogeneratePattern = "" // note: the hook assigns the next number instead
	id.Min = 1
	id.Max = 16
	return c
}

// addTimestamps appends the created and updated autodate fields.
func addTimestamps(c *core.Collection) {
	c.Fields.Add(
		&core.AutodateField{Name: "created", OnCreate: true},
		&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
	)
}

// organizationField is the tenant relation every tenant-owned collection has.
func organizationField(orgs *core.Collection) *core.RelationField {
	return &core.RelationField{
		Name:          "organization",
		CollectionId:  orgs.Id,
		MaxSelect:     1,
		Required:      true,
		CascadeDelete: true,
	}
}

// numericIDIndex orders records by their id as a number, which text ids do
// not: "10" < "9" as text.
func numericIDIndex(c *core.Collection) {
	c.AddIndex("idx_"+c.Name+"_num_id", true, "CAST(id AS INTEGER)", "")
}

// ptr is a shorthand for rule values.
func ptr(s string) *string { return types.Pointer(s) }

// execAll runs SQL statements in order.
func execAll(app core.App, statements []string) error {
	for _, s := range statements {
		if _, err := app.DB().NewQuery(s).Execute(); err != nil {
			return err
		}
	}
	return nil
}
