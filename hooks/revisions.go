package hooks

import (
	"encoding/json/v2"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"
	"github.com/pocketbase/pocketbase/tools/types"
)

// deciderKey is the custom (never stored, never exported) record data in
// which the update request hook hands the deciding identity to the record
// hook; only HTTP requests set it.
const deciderKey = "@enrichmentDecider"

// systemDecider is the reviewer recorded for decisions saved by Go code.
const systemDecider = "system"

// decisionFields may be changed by whoever decides; serverFields are set by
// the server alone, so values sent for them are dropped.
var (
	decisionFields = []string{"status", "approvedFields"}
	serverFields   = []string{"reviewedAt", "reviewer"}
)

// registerRevisions makes updating a revision the review decision: the state
// check, applying the approved fields to the product and stamping who decided
// when, all in one transaction, for the dashboard, the records API and Go
// saves alike.
func registerRevisions(app core.App) {
	app.OnRecordUpdateRequest("revisions").Bind(&hook.Handler[*core.RecordRequestEvent]{
		Id: "enrichmentReviewDecider",
		Func: func(e *core.RecordRequestEvent) error {
			// note: the body is already loaded into e.Record; this overwrites
			// whatever a client may have sent under the same key
			e.Record.Set(deciderKey, decider(e.Auth))
			return e.Next()
		},
	})
	app.OnRecordUpdate("revisions").Bind(&hook.Handler[*core.RecordEvent]{
		Id: "enrichmentReviewDecision",
		Func: func(e *core.RecordEvent) error {
			return inTransaction(e, func(txApp core.App) error {
				if err := decide(txApp, e.Record); err != nil {
					return err
				}
				return e.Next()
			})
		},
	})
}

// decider names the identity deciding through an HTTP request.
func decider(auth *core.Record) string {
	if auth == nil {
		return "guest"
	}
	who := auth.Email()
	if who == "" {
		who = auth.Id
	}
	switch {
	case auth.IsSuperuser():
		return "superuser:" + who
	case auth.Collection().Name == "reviewers":
		return "reviewer:" + who
	}
	return auth.Collection().Name + ":" + who
}

// decide checks the update of rev against the stored revision and, for a
// decision, applies it: rev is then ready to be saved. Only app (the
// transaction) is used.
func decide(app core.App, rev *core.Record) error {
	// note: re-read inside the transaction, so two concurrent decisions
	// cannot both start from "pending"
	stored, err := app.FindRecordById(rev.Collection(), rev.Id)
	if err != nil {
		return fmt.Errorf("reload revision %s: %w", rev.Id, err)
	}
	if err := checkReadOnly(app, stored, rev); err != nil {
		return err
	}
	for _, name := range serverFields {
		rev.Set(name, stored.Get(name))
	}
	who, fromRequest := rev.GetRaw(deciderKey).(string)
	if !fromRequest {
		who = systemDecider
	}

	from := stored.GetString("status")
	d := store.Decision{Status: rev.GetString("status"), ApprovedFields: rev.GetStringSlice("approvedFields")}
	// Go code may save a decided revision unchanged (PocketBase does so when
	// the product is deleted); a request may not even try
	if from != enrichment.StatusPending && !fromRequest && d.Status == from &&
		slices.Equal(d.ApprovedFields, stored.GetStringSlice("approvedFields")) {
		return nil
	}
	var proposed enrichment.Fields
	if err := decodeJSON(stored, "proposed", &proposed); err != nil {
		return err
	}
	applied, decided, err := store.New(app).Decide(store.ReviewedRevision{
		ID: stored.Id, Org: enrichment.Org(stored.GetString("organization")), Product: stored.GetString("product"),
		Status: from, Proposed: proposed,
	}, d)
	if err != nil {
		return apiError(err)
	}
	if !decided {
		return nil
	}
	rev.Set("approvedFields", applied)
	rev.Set("reviewedAt", types.NowDateTime())
	rev.Set("reviewer", who)
	return nil
}

// checkReadOnly refuses, naming them, changes to fields other than the
// decision's. It lets through one change PocketBase makes itself: clearing
// the product relation after the product was deleted.
func checkReadOnly(app core.App, stored, rev *core.Record) error {
	errs := validation.Errors{}
	var names []string
	for _, f := range rev.Collection().Fields {
		name := f.GetName()
		if f.Type() == core.FieldTypeAutodate || slices.Contains(decisionFields, name) || slices.Contains(serverFields, name) {
			continue
		}
		if sameValue(stored.Get(name), rev.Get(name)) {
			continue
		}
		if name == "product" && rev.GetString(name) == "" && !productExists(app, stored.GetString(name)) {
			continue
		}
		names = append(names, name)
		errs[name] = validation.NewError("validation_read_only", "Only status and approvedFields can be changed.")
	}
	if len(names) == 0 {
		return nil
	}
	return router.NewBadRequestError(fmt.Sprintf("Only status and approvedFields of a revision can be changed, not %s.",
		strings.Join(names, ", ")), errs)
}

// productExists reports whether a product record with that id is stored.
func productExists(app core.App, id string) bool {
	if id == "" {
		return false
	}
	_, err := app.FindRecordById("products", id)
	return err == nil
}

// sameValue compares two field values as stored: JSON by meaning (the
// dashboard sends it back reformatted), dates by their text.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case types.JSONRaw:
		y, _ := b.(types.JSONRaw)
		return reflect.DeepEqual(jsonValue(x), jsonValue(y))
	case types.DateTime:
		y, _ := b.(types.DateTime)
		return x.String() == y.String()
	}
	return reflect.DeepEqual(a, b)
}

// jsonValue decodes raw JSON; empty or invalid JSON stays as its text.
func jsonValue(raw types.JSONRaw) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return v
}

// apiError turns a broken rule of the domain into a 400 whose data names the
// field at fault, in PocketBase's validation error shape; other errors pass.
func apiError(err error) error {
	e, ok := enrichment.AsError(err)
	if !ok {
		return err
	}
	var detail error = validation.NewError(e.Rule, e.Detail)
	if e.Details != nil {
		detail = e.Details
	}
	return router.NewBadRequestError(e.Message, validation.Errors{e.Field: detail})
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
