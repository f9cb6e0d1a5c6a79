package hooks

import (
	"fmt"
	"math"
	"time"

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

// policyServiceFields are the trust policy fields the service alone sets:
// what a request sends for them is ignored.
var policyServiceFields = []string{"state", "measuredPrecision", "measuredReviewed", "stateChangedAt", "stateReason", "enabledAt"}

// registerTrustPolicies keeps trust policies (docs/review.md) within their
// rules for every save: the dashboard, the records API and Go code alike.
// Requests cannot set the service's fields; every save fills the defaults,
// checks the ranges and the organization of the client and template, and
// brings the state up to date with the measurement.
func registerTrustPolicies(app core.App) {
	app.OnRecordCreateRequest(schema.TrustPolicies).Bind(&hook.Handler[*core.RecordRequestEvent]{
		Id: "enrichmentPolicyServiceFieldsOnCreate",
		Func: func(e *core.RecordRequestEvent) error {
			for _, name := range policyServiceFields {
				e.Record.Set(name, nil)
			}
			return e.Next()
		},
	})
	app.OnRecordUpdateRequest(schema.TrustPolicies).Bind(&hook.Handler[*core.RecordRequestEvent]{
		Id: "enrichmentPolicyServiceFieldsOnUpdate",
		Func: func(e *core.RecordRequestEvent) error {
			stored := e.Record.Original()
			for _, name := range policyServiceFields {
				e.Record.Set(name, stored.Get(name))
			}
			return e.Next()
		},
	})
	check := func(e *core.RecordEvent) error {
		if err := checkPolicy(e.App, e.Record); err != nil {
			return err
		}
		if _, err := RefreshPolicy(e.App, e.Record, clock.Now(e.App)); err != nil {
			return err
		}
		return e.Next()
	}
	app.OnRecordDelete(schema.TrustPolicies).Bind(&hook.Handler[*core.RecordEvent]{
		Id: "enrichmentKeepDecidingPolicies",
		Func: func(e *core.RecordEvent) error {
			if organizationExists(e.App, e.Record.GetString("organization")) &&
				decidedAny(e.App, e.Record.GetString("organization"), e.Record.Id) {
				return router.NewBadRequestError("This policy decided revisions, which name it: disable it instead of deleting it.", nil)
			}
			return e.Next()
		},
	})
	app.OnRecordCreate(schema.TrustPolicies).Bind(&hook.Handler[*core.RecordEvent]{Id: "enrichmentPolicyCreate", Func: check})
	app.OnRecordUpdate(schema.TrustPolicies).Bind(&hook.Handler[*core.RecordEvent]{Id: "enrichmentPolicyUpdate", Func: check})
}

// decidedAny reports whether the policy decided a revision of org; when
// that cannot be read it answers yes, so the policy is kept.
func decidedAny(app core.App, org, policy string) bool {
	decided, err := store.New(app).Trust().PolicyDecided(enrichment.Org(org), policy)
	if err != nil {
		app.Logger().Error("check a trust policy before deleting it", "policy", policy, "error", err)
	}
	return err != nil || decided
}

// checkPolicy fills the defaults of a policy's numbers (0 or absent takes
// the default) and refuses, naming the fields, values outside their ranges
// and a client or template of another organization.
func checkPolicy(app core.App, rec *core.Record) error {
	defaults := map[string]float64{"targetPrecision": enrichment.DefaultTargetPrecision,
		"minReviewed": enrichment.DefaultMinReviewed, "auditRate": enrichment.DefaultAuditRate}
	for name, value := range defaults {
		if rec.GetFloat(name) == 0 {
			rec.Set(name, value)
		}
	}
	errs := validation.Errors{}
	if v := rec.GetFloat("minConfidence"); v != math.Trunc(v) {
		errs["minConfidence"] = validation.NewError("validation_out_of_range", "Must be a whole number from 0 to 100.")
	}
	if v := rec.GetFloat("minReviewed"); v != math.Trunc(v) {
		errs["minReviewed"] = validation.NewError("validation_out_of_range", "Must be a whole number of at least 20.")
	}
	for _, p := range policyOf(rec).Check() {
		errs[p.Field] = validation.NewError("validation_out_of_range", p.Message)
	}
	org := rec.GetString("organization")
	owned := func(collection, field string) {
		id := rec.GetString(field)
		if id == "" {
			return
		}
		other, err := app.FindRecordById(collection, id)
		if err != nil || other.GetString("organization") != org {
			errs[field] = validation.NewError("validation_other_organization", "Must be one of the policy's organization.")
		}
	}
	owned(schema.APIClients, "apiClient")
	owned(schema.AttributeTemplates, "template")
	if len(errs) == 0 {
		return nil
	}
	return router.NewBadRequestError(firstPolicyMessage(errs), errs)
}

// firstPolicyMessage is the response's sentence: the first field at fault
// in the collection's order, with what it must be.
func firstPolicyMessage(errs validation.Errors) string {
	for _, name := range []string{"apiClient", "template", "fields", "minConfidence", "targetPrecision", "minReviewed", "auditRate"} {
		if err, ok := errs[name]; ok {
			return fmt.Sprintf("Invalid %s: %s", name, err.Error())
		}
	}
	return "Invalid trust policy."
}

// policyOf reads the rules' view of a policy record.
func policyOf(rec *core.Record) enrichment.TrustPolicy {
	return enrichment.TrustPolicy{Fields: rec.GetStringSlice("fields"), MinConfidence: rec.GetInt("minConfidence"),
		TargetPrecision: rec.GetFloat("targetPrecision"), MinReviewed: int(rec.GetFloat("minReviewed")),
		AuditRate: rec.GetFloat("auditRate"), Enabled: rec.GetBool("enabled"), State: rec.GetString("state")}
}

// RefreshPolicy brings a policy record's measurement and state up to date
// at now (enrichment.Earned), without saving it; changed tells whether it
// changed. A state change stamps stateChangedAt; enabling stamps enabledAt
// (audits closed before it no longer count towards a suspension).
func RefreshPolicy(app core.App, rec *core.Record, now time.Time) (changed bool, err error) {
	p := policyOf(rec)
	wasEnabled := !rec.IsNew() && rec.Original().GetBool("enabled")
	if p.Enabled && (!wasEnabled || rec.GetDateTime("enabledAt").IsZero()) {
		if err := setTime(rec, "enabledAt", now); err != nil {
			return false, err
		}
		changed = true
		if p.State == enrichment.PolicySuspended { // note: a suspended policy is disabled first, which makes it learning
			p.State = enrichment.PolicyLearning
		}
	}
	m, err := store.New(app).Trust().Measure(store.Policy{Org: enrichment.Org(rec.GetString("organization")), Client: rec.GetString("apiClient"),
		Template: rec.GetString("template"), TrustPolicy: p}, now)
	if err != nil {
		return false, err
	}
	precision := math.Round(m.Precision()*10000) / 10000
	if rec.GetFloat("measuredPrecision") != precision || rec.GetInt("measuredReviewed") != m.Reviewed {
		rec.Set("measuredPrecision", precision)
		rec.Set("measuredReviewed", m.Reviewed)
		changed = true
	}
	state, reason := enrichment.Earned(p, m)
	if state != rec.GetString("state") {
		rec.Set("state", state)
		if err := setTime(rec, "stateChangedAt", now); err != nil {
			return false, err
		}
		changed = true
	}
	if reason != "" && reason != rec.GetString("stateReason") {
		rec.Set("stateReason", reason)
		changed = true
	}
	return changed, nil
}

// SuspendPolicy suspends a policy record with the reason, at now, if it is
// not already; it saves it on app (a transaction's, for an audit's close).
func SuspendPolicy(app core.App, id, reason string, now time.Time) error {
	rec, err := app.FindRecordById(schema.TrustPolicies, id)
	if err != nil {
		return fmt.Errorf("find trust policy %s: %w", id, err)
	}
	if rec.GetString("state") == enrichment.PolicySuspended || !rec.GetBool("enabled") {
		return nil
	}
	rec.Set("state", enrichment.PolicySuspended)
	rec.Set("stateReason", reason)
	if err := setTime(rec, "stateChangedAt", now); err != nil {
		return err
	}
	if err := app.Save(rec); err != nil {
		return fmt.Errorf("suspend trust policy %s: %w", id, err)
	}
	return nil
}

// setTime sets a date field of rec.
func setTime(rec *core.Record, field string, t time.Time) error {
	at, err := types.ParseDateTime(t)
	if err != nil {
		return fmt.Errorf("%s of %s %s: %w", field, rec.Collection().Name, rec.Id, err)
	}
	rec.Set(field, at)
	return nil
}
