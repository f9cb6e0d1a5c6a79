package migrations_test

import (
	"slices"
	"testing"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/fixture"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// The migrations spell the domain's values as literals, so that a released
// migration never changes with the code; this test keeps the two from
// drifting apart: every select's values, every text limit and every name
// the code relies on, against the schema the migrations build.
func TestSchemaMatchesDomain(t *testing.T) {
	app := fixture.Empty(t)
	collection := func(name string) *core.Collection {
		t.Helper()
		c, err := app.FindCollectionByNameOrId(name)
		if err != nil {
			t.Fatalf("collection %s: %v", name, err)
		}
		return c
	}
	selectValues := func(c, field string, want []string) {
		t.Helper()
		f, ok := collection(c).Fields.GetByName(field).(*core.SelectField)
		if !ok {
			t.Fatalf("%s.%s is not a select field", c, field)
		}
		if !slices.Equal(f.Values, want) {
			t.Errorf("%s.%s values %q, the domain says %q", c, field, f.Values, want)
		}
	}
	textMax := func(c, field string, want int) {
		t.Helper()
		f, ok := collection(c).Fields.GetByName(field).(*core.TextField)
		if !ok {
			t.Fatalf("%s.%s is not a text field", c, field)
		}
		if f.Max != want {
			t.Errorf("%s.%s holds %d characters, the domain says %d", c, field, f.Max, want)
		}
	}

	selectValues(schema.APIClients, "scopes", enrichment.Scopes)
	selectValues(schema.Revisions, "status", enrichment.Statuses)
	selectValues(schema.Revisions, "approvedFields", enrichment.EnrichableFields)
	selectValues(schema.Revisions, "overwrittenFields", enrichment.EnrichableFields)
	selectValues(schema.Revisions, "confidenceBand", enrichment.ConfidenceBands)
	selectValues(schema.Revisions, "reason", enrichment.Reasons)
	selectValues(schema.Revisions, "supersededFields", enrichment.EnrichableFields)
	selectValues(schema.Webhooks, "events", enrichment.WebhookEvents)
	selectValues(schema.WebhookDeliveries, "event", enrichment.WebhookEvents)
	selectValues(schema.WebhookDeliveries, "status", enrichment.DeliveryStatuses)

	for _, f := range []struct {
		collection, field string
		max               int
	}{
		{schema.Organizations, "name", enrichment.MaxNameLength},
		{schema.APIClients, "name", enrichment.MaxNameLength},
		{schema.AttributeTemplates, "name", enrichment.MaxNameLength},
		{schema.AttributeOptions, "attribute", enrichment.MaxNameLength},
		{schema.AttributeOptions, "unit", enrichment.MaxShortLength},
		{schema.AttributeOptions, "dataType", enrichment.MaxShortLength},
		{schema.Brands, "name", enrichment.MaxNameLength},
		{schema.Brands, "website", enrichment.MaxWebsiteLength},
		{schema.Brands, "slug", enrichment.MaxNameLength},
		{schema.Products, "sku", enrichment.MaxNameLength},
		{schema.Products, "externalId", enrichment.MaxNameLength},
		{schema.Products, "gtin", enrichment.MaxShortLength},
		{schema.Products, "name", enrichment.MaxProductTextLength},
		{schema.Products, "slug", enrichment.MaxProductTextLength},
		{schema.Products, "description", enrichment.MaxDescriptionLength},
		{schema.Revisions, "sku", enrichment.MaxNameLength},
		{schema.Revisions, "comment", enrichment.MaxCommentLength},
	} {
		textMax(f.collection, f.field, f.max)
	}

	// a proposal's lists are dropped when they would not fit these
	for _, field := range []string{"attributes", "files"} {
		f, ok := collection(schema.Products).Fields.GetByName(field).(*core.JSONField)
		if !ok || f.CalculateMaxBodySize() != enrichment.MaxJSONFieldSize {
			t.Errorf("products.%s does not hold %d bytes of JSON, as the domain says", field, enrichment.MaxJSONFieldSize)
		}
	}

	for _, name := range []string{schema.Organizations, schema.APIClients, schema.AttributeTemplates,
		schema.AttributeOptions, schema.Brands, schema.Products, schema.Revisions, schema.Webhooks, schema.WebhookDeliveries} {
		id, _ := collection(name).Fields.GetByName("id").(*core.TextField)
		if id == nil || id.Pattern != schema.NumericIDPattern {
			t.Errorf("%s: id pattern is not the numeric one", name)
		}
	}
	if c := collection(schema.Reviewers); !c.IsAuth() {
		t.Errorf("%s is not an auth collection", schema.Reviewers)
	}

	var objects []struct {
		Type string `db:"type"`
		Name string `db:"name"`
	}
	if err := app.DB().Select("type", "name").From("sqlite_schema").All(&objects); err != nil {
		t.Fatal(err)
	}
	has := func(kind, name string) {
		t.Helper()
		if !slices.ContainsFunc(objects, func(o struct {
			Type string `db:"type"`
			Name string `db:"name"`
		}) bool {
			return o.Type == kind && o.Name == name
		}) {
			t.Errorf("no %s named %s", kind, name)
		}
	}
	for _, table := range []string{schema.SequenceTable, schema.IdempotencyTable, schema.GenerationsTable,
		schema.ChangesTable, schema.ChangesHorizonTable, schema.AcceptedValuesTable} {
		has("table", table)
	}
	for _, trigger := range slices.Concat(schema.GenerationTriggers, schema.ChangeTriggers,
		[]string{schema.ImportHashTrigger, schema.AcceptedValuesCleanupTrigger}) {
		has("trigger", trigger)
	}
	for _, index := range []string{schema.IdxProductsExport, schema.IdxProductsSKU, schema.IdxProductsVariantMaster,
		schema.IdxRevisionsPendingProduct, schema.IdxWebhookDeliveriesDue} {
		has("index", index)
	}
	var stale int
	if err := app.DB().Select("COUNT(*)").From("sqlite_schema").
		Where(dbx.Like("name", "enrichment_product_changes")).Row(&stale); err != nil || stale != 0 {
		t.Errorf("the replaced product-changes triggers remain: %d, %v", stale, err)
	}
}
