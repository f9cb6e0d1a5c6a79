package hooks

import (
	"encoding/json/v2"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/catalog-enrichment/enrichment/apierror"
	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"
	"github.com/pocketbase/pocketbase/tools/types"
)

// decisionFields may be changed by whoever decides, with the decision;
// serverFields are set by the server alone, so values sent for them are
// dropped.
var (
	decisionFields = []string{"status", "approvedFields", "reason", "comment", "corrections", "fieldReasons"}
	serverFields   = []string{"reviewedAt", "reviewer", "closedAt", "supersededBy", "supersededFields",
		"approvedAttributes", "supersededAttributes", "overwrittenAttributes", "decisionMask",
		"decidedBy", "policy", "audit", "auditedAt", "auditedBy"}
)

// registerRevisions makes updating a revision the review decision: the state
// check, applying the approved fields to the product and stamping who decided
// when, all in one transaction, for the dashboard, the records API and Go
// saves alike (docs/review.md). Revisions are history: they are deleted only
// with their organization.
func registerRevisions(app core.App) {
	app.OnRecordUpdateRequest(schema.Revisions).Bind(&hook.Handler[*core.RecordRequestEvent]{
		Id: "enrichmentReviewDecider",
		Func: func(e *core.RecordRequestEvent) error {
			if err := singleStrings(e); err != nil {
				return err
			}
			// note: the body is already loaded into e.Record; this overwrites
			// whatever a client may have sent under the same key
			MarkDecider(e.Record, e.Auth)
			return e.Next()
		},
	})
	app.OnRecordUpdate(schema.Revisions).Bind(&hook.Handler[*core.RecordEvent]{
		Id: "enrichmentReviewDecision",
		Func: func(e *core.RecordEvent) error {
			err := inTransaction(e, func(txApp core.App) error {
				// note: re-read inside the transaction, so two concurrent
				// decisions cannot both start from "pending"
				stored, err := txApp.FindRecordById(e.Record.Collection(), e.Record.Id)
				if err != nil {
					return fmt.Errorf("reload revision %s: %w", e.Record.Id, err)
				}
				closing, err := closesAudit(txApp, stored, e.Record)
				if err != nil {
					return err
				}
				if closing { // an audit's close, not a decision (hooks/audits.go)
					if err := e.Next(); err != nil {
						return err
					}
					return afterAudit(txApp, e.Record)
				}
				if err := decide(txApp, stored, e.Record); err != nil {
					return err
				}
				// the decision's effects are written; this saves the record as
				// the decision left it (PocketBase's realtime announces it)
				return e.Next()
			})
			// an overdue revision is refused, then expired, in a transaction
			// of its own (the decision's was rolled back)
			if rule, ok := enrichment.AsError(err); ok && rule.Rule == enrichment.RuleRevisionExpired {
				org := enrichment.Org(e.Record.GetString("organization"))
				if _, expireErr := store.New(e.App).Proposals().ExpireRevisions(org, []string{e.Record.Id}, clock.Now(e.App)); expireErr != nil {
					return errors.Join(err, expireErr)
				}
			}
			return apierror.Or(err)
		},
	})
	app.OnRecordDelete(schema.Revisions).Bind(&hook.Handler[*core.RecordEvent]{
		Id: "enrichmentKeepRevisions",
		Func: func(e *core.RecordEvent) error {
			if organizationExists(e.App, e.Record.GetString("organization")) {
				return router.NewBadRequestError("Revisions are the vendors' history: they are deleted only with their organization.", nil)
			}
			return e.Next()
		},
	})
}

// singleStringFields are the decision's fields that hold one string. Each
// must be sent as one plain string: not a list (PocketBase would keep its
// last element), not a number, not null, and not through the field+, +field
// or field- modifiers. A field named here need not exist yet.
var singleStringFields = []string{"status", "reason", "audit"}

// singleStrings refuses a decision that sends a field of singleStringFields
// as anything but one string, naming each such field.
func singleStrings(e *core.RecordRequestEvent) error {
	body, err := submittedBody(e.Request)
	if err != nil {
		return fmt.Errorf("read the decision of revision %s: %w", e.Record.Id, err)
	}
	errs := validation.Errors{}
	refuse := func(key string) {
		name, _ := fieldOfKey(key)
		if i := slices.IndexFunc(singleStringFields, func(f string) bool { return strings.EqualFold(f, name) }); i >= 0 {
			field := singleStringFields[i]
			errs[field] = validation.NewError("validation_invalid_"+field, "Must be a single string.")
		}
	}
	for key, value := range body {
		_, modified := fieldOfKey(key)
		if _, ok := value.(string); !ok || modified {
			refuse(key)
		}
	}
	// note: a form value and the @jsonPayload both setting one field are
	// two values, of which PocketBase would keep the payload's in silence
	for _, key := range sentTwice(e.Request.Form) {
		refuse(key)
	}
	if len(errs) == 0 {
		return nil
	}
	names := slices.Sorted(maps.Keys(errs))
	return router.NewBadRequestError(fmt.Sprintf("A decision's %s must be one string each, sent without + or - modifiers.",
		strings.Join(names, " and ")), errs)
}

// submittedBody is the request's body as sent, decoded the way PocketBase
// decodes it for the records API: JSON, or form values (URL-encoded or
// multipart, with a multipart @jsonPayload merged in).
// note: by the time the update request hook runs, PocketBase has replaced
// e.RequestInfo().Body with the normalized values (a list's last element,
// the modifiers applied), so the body is decoded again: a parsed form is
// kept on the request, and a JSON body stays re-readable.
func submittedBody(r *http.Request) (map[string]any, error) {
	body := map[string]any{}
	if r.Form != nil {
		err := router.UnmarshalRequestData(r.Form, &body, "", "")
		return body, err
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return body, nil // PocketBase reads nothing else
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil || len(raw) == 0 {
		return body, err
	}
	if json.Unmarshal(raw, &body) != nil {
		return map[string]any{}, nil // PocketBase has refused what it could not read
	}
	return body, nil
}

// sentTwice names the fields that a multipart form sets in more than one
// place: as a form value and in an @jsonPayload, or in two payloads.
func sentTwice(form url.Values) []string {
	places := map[string]int{}
	for key := range form {
		if key != router.JSONPayloadKey {
			name, _ := fieldOfKey(key)
			places[strings.ToLower(name)]++
		}
	}
	for _, payload := range form[router.JSONPayloadKey] {
		var fields map[string]any
		if json.Unmarshal([]byte(payload), &fields) != nil {
			continue
		}
		for key := range fields {
			name, _ := fieldOfKey(key)
			places[strings.ToLower(name)]++
		}
	}
	var twice []string
	for name, n := range places {
		if n > 1 {
			twice = append(twice, name)
		}
	}
	return twice
}

// fieldOfKey names the field a body key sets and tells whether the key
// carries one of PocketBase's modifiers (+field, field+, field-).
func fieldOfKey(key string) (name string, modified bool) {
	name, modified = strings.CutPrefix(key, "+")
	if n, ok := strings.CutSuffix(name, "+"); ok {
		return n, true
	}
	if n, ok := strings.CutSuffix(name, "-"); ok {
		return n, true
	}
	return name, modified
}

// organizationExists reports whether an organization record is stored; in
// the transaction that deletes an organization, it no longer is while its
// records are deleted with it.
func organizationExists(app core.App, id string) bool {
	_, err := app.FindRecordById(schema.Organizations, id)
	return err == nil
}

// decide translates the update of rev (stored: the revision as read in
// the transaction) into a decision, makes it as every decision is made
// (store.DecideInTransaction: the rules, the product, the counters, the
// outbox, the claims) and copies the revision as it was written back onto
// rev, which is then ready to be saved. An update that decides nothing
// leaves rev as sent, but for the server's fields. Only app (the
// transaction) is used.
func decide(app core.App, stored, rev *core.Record) error {
	if err := checkReadOnly(app, stored, rev); err != nil {
		return err
	}
	for _, name := range serverFields {
		rev.Set(name, stored.Get(name))
	}
	d := enrichment.Decision{Status: rev.GetString("status"), ApprovedFields: rev.GetStringSlice("approvedFields"),
		Reason: rev.GetString("reason"), Comment: rev.GetString("comment")}
	who := deciderOf(rev)
	// Go code may save a revision in a final state unchanged (PocketBase
	// does so when the product is deleted); a request may not even try
	from := stored.GetString("status")
	if from != enrichment.StatusPending && who.Service && d.Status == from &&
		slices.Equal(d.ApprovedFields, stored.GetStringSlice("approvedFields")) &&
		d.Reason == stored.GetString("reason") && d.Comment == stored.GetString("comment") &&
		sameValue(stored.Get("corrections"), rev.Get("corrections")) && sameValue(stored.Get("fieldReasons"), rev.Get("fieldReasons")) {
		return nil
	}
	var err error
	if d.Corrections, err = enrichment.ParseObject("corrections", []byte(rev.GetString("corrections"))); err != nil {
		return err
	}
	if d.FieldReasons, err = enrichment.ParseObject("fieldReasons", []byte(rev.GetString("fieldReasons"))); err != nil {
		return err
	}
	org := enrichment.Org(stored.GetString("organization"))
	outcome, err := store.New(app).Review().DecideInTransaction(org, store.SetDecision{Revision: stored.Id, Decision: d}, who, clock.Now(app))
	if err != nil {
		return err
	}
	if outcome.Err != nil || outcome.Undecided {
		return outcome.Err
	}
	written, err := app.FindRecordById(rev.Collection(), rev.Id)
	if err != nil {
		return fmt.Errorf("reload decided revision %s: %w", rev.Id, err)
	}
	for _, name := range append(slices.Clone(decisionFields), serverFields...) {
		rev.Set(name, written.Get(name))
	}
	return nil
}

// checkReadOnly refuses, naming them, changes to fields other than the
// decision's. It lets through one change PocketBase makes itself: clearing
// the product relation after the product was deleted.
func checkReadOnly(app core.App, stored, rev *core.Record) error {
	names := changedFields(stored, rev, func(f core.Field) bool {
		name := f.GetName()
		return f.Type() == core.FieldTypeAutodate || slices.Contains(decisionFields, name) || slices.Contains(serverFields, name)
	})
	names = slices.DeleteFunc(names, func(name string) bool {
		return name == "product" && rev.GetString(name) == "" && !productExists(app, stored.GetString(name))
	})
	if len(names) == 0 {
		return nil
	}
	errs := validation.Errors{}
	for _, name := range names {
		errs[name] = validation.NewError("validation_read_only", "Only the decision's fields can be changed.")
	}
	return router.NewBadRequestError(fmt.Sprintf("Only status, approvedFields, reason, comment, corrections and fieldReasons of a revision can be changed, not %s.",
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

// changedFields names the fields of after's collection whose values in
// before and after differ (sameValue), leaving out those skip names.
func changedFields(before, after *core.Record, skip func(core.Field) bool) []string {
	var names []string
	for _, f := range after.Collection().Fields {
		if name := f.GetName(); !skip(f) && !sameValue(before.Get(name), after.Get(name)) {
			names = append(names, name)
		}
	}
	return names
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
