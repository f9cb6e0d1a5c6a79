package migrations

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Finer decisions (docs/review.md): a decision on single attributes, a
// reviewer's corrections and a reason per field. Revisions stored before
// keep their meaning: where these fields are empty, "attributes" in
// approvedFields, supersededFields or overwrittenFields stands for every
// proposed attribute.
//
//   - approvedAttributes: the names of the attributes a decision applied;
//   - supersededAttributes: the names of the proposed attributes that a
//     newer proposal of the same client replaced ("attributes" joins
//     supersededFields once every one is);
//   - overwrittenAttributes: the names of the applied attributes that a
//     later catalog import replaced;
//   - corrections: what the reviewer applied instead of the proposal, by
//     field or "attributes.NAME";
//   - fieldReasons: why a field or attribute was not applied, by the same
//     keys.
func init() {
	m.Register(addFinerDecisions, dropFinerDecisions)
}

// finerDecisionFields are the fields this migration adds to revisions.
var finerDecisionFields = []string{"approvedAttributes", "supersededAttributes", "overwrittenAttributes", "corrections", "fieldReasons"}

func addFinerDecisions(app core.App) error {
	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	revisions.Fields.Add(
		&core.JSONField{Name: "approvedAttributes", MaxSize: 1 << 20,
			Help: "Names of the proposed attributes the decision applied (set by the service)."},
		&core.JSONField{Name: "supersededAttributes", MaxSize: 1 << 20,
			Help: "Names of the proposed attributes a newer proposal of the same client replaced (set by the service)."},
		&core.JSONField{Name: "overwrittenAttributes", MaxSize: 1 << 20,
			Help: "Names of the applied attributes a later catalog import replaced (set by the service)."},
		&core.JSONField{Name: "corrections", MaxSize: 1 << 20,
			Help: `What the reviewer applied instead of the proposed value, by field or "attributes.NAME"; set with the decision.`},
		&core.JSONField{Name: "fieldReasons", MaxSize: 1 << 16,
			Help: `Why a field or "attributes.NAME" was not applied, one of the six reasons each; set with the decision.`},
	)
	if err := app.Save(revisions); err != nil {
		return fmt.Errorf("revisions: %w", err)
	}
	return nil
}

func dropFinerDecisions(app core.App) error {
	revisions, err := app.FindCollectionByNameOrId(schema.Revisions)
	if err != nil {
		return err
	}
	for _, name := range finerDecisionFields {
		revisions.Fields.RemoveByName(name)
	}
	if err := app.Save(revisions); err != nil {
		return fmt.Errorf("revisions: %w", err)
	}
	return nil
}
