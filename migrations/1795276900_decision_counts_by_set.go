package migrations

import (
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// The decisions are counted by the one path that writes them (a set of
// decisions, store/decide_set_write.go), once per set, instead of by a
// trigger once per revision: the trigger's upsert of one row for every
// decided revision cost a group decision of 250 about 13%. The counts
// themselves are unchanged.
func init() {
	m.Register(func(app core.App) error {
		return execAll(app, []string{"DROP TRIGGER IF EXISTS " + schema.DecisionCountsTrigger})
	}, func(app core.App) error {
		return execAll(app, []string{decisionCountsTrigger})
	})
}
