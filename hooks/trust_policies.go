package hooks

import (
	"encoding/json/v2"
	"fmt"
	"math"
	"slices"
	"strings"
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
var policyServiceFields = []string{"state", "measuredPrecision", "measuredReviewed", "stateChangedAt", "stateReason", "enabledAt",
	"precisionLowerBound", "activatedAt", "probation"}

// registerTrustPolicies keeps trust policies (docs/review.md) within their
// rules for every save: the dashboard, the records API and Go code alike.
// Requests cannot set the service's fields; every save fills the defaults,
// checks the ranges and the organization of the client and template, and a
// save that creates a policy or changes what a reviewer sets brings the
// state up to date with the measurement (the service's own saves, of
// state, measurement or probation, set what they mean to).
func registerTrustPolicies(app core.App) {
	app.OnRecordCreateRequest(schema.TrustPolicies).Bind(&hook.Handler[*core.RecordRequestEvent]{
		Id: "enrichmentPolicyServiceFieldsOnCreate",
		Func: func(e *core.RecordRequestEvent) error {
			for _, name := range policyServiceFields {
				e.Record.Set(name, nil)
			}
			// note: auditRate left out takes the default; sent as 0 it is refused
			info, err := e.RequestInfo()
			if err != nil {
				return err
			}
			if rate, sent := info.Body["auditRate"]; !sent || rate == nil {
				e.Record.Set("auditRate", enrichment.DefaultAuditRate)
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
		if !reviewerChanged(e.Record) {
			return e.Next()
		}
		if _, err := RefreshPolicy(e.App, e.Record, clock.Now(e.App)); err != nil {
			return err
		}
		return e.Next()
	}
	app.OnRecordDelete(schema.TrustPolicies).Bind(&hook.Handler[*core.RecordEvent]{
		Id: "enrichmentKeepDecidingPolicies",
		Func: func(e *core.RecordEvent) error {
			if organizationExists(e.App, e.Record.GetString("organization")) && decidedAny(e.App, e.Record.GetString("organization"), e.Record.Id) {
				return router.NewBadRequestError("This policy decided revisions, which name it: disable it instead of deleting it.", nil)
			}
			return e.Next()
		},
	})
	app.OnRecordCreate(schema.TrustPolicies).Bind(&hook.Handler[*core.RecordEvent]{Id: "enrichmentPolicyCreate", Func: check})
	app.OnRecordUpdate(schema.TrustPolicies).Bind(&hook.Handler[*core.RecordEvent]{Id: "enrichmentPolicyUpdate", Func: check})
}

// reviewerChanged tells whether saving policy rec creates it or changes a
// field a reviewer sets (any but the service's).
func reviewerChanged(rec *core.Record) bool {
	if rec.IsNew() {
		return true
	}
	return len(changedFields(rec.Original(), rec, func(f core.Field) bool {
		return slices.Contains(policyServiceFields, f.GetName()) || f.GetName() == "updated"
	})) > 0
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

// checkPolicy fills the defaults of a policy's targetPrecision and
// minReviewed (0 or absent takes the default; auditRate's default is the
// create request's, and 0 is out of its range) and refuses, naming the
// fields, values outside their ranges and a client or template of another
// organization.
func checkPolicy(app core.App, rec *core.Record) error {
	defaults := map[string]float64{"targetPrecision": enrichment.DefaultTargetPrecision,
		"minReviewed": enrichment.DefaultMinReviewed}
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

// RefreshPolicy brings a policy record's measurement, state and probation
// up to date at now (enrichment.Earned), without saving it; changed tells
// whether it changed. A state change stamps stateChangedAt, becoming
// active activatedAt; enabling stamps enabledAt.
func RefreshPolicy(app core.App, rec *core.Record, now time.Time) (changed bool, err error) {
	p := policyOf(rec)
	changed, err = refreshEnabled(app, rec, &p, now)
	if err != nil {
		return false, err
	}
	st := store.New(app)
	stored := storedPolicy(rec, p)
	m, err := st.Trust().Measure(stored, now)
	if err != nil {
		return false, err
	}
	changed = setNumber(rec, "measuredPrecision", round4(m.Precision())) || changed
	changed = setNumber(rec, "measuredReviewed", float64(m.Reviewed)) || changed
	changed = setNumber(rec, "precisionLowerBound", round4(m.LowerBound())) || changed
	state, reason := enrichment.Earned(p, m)
	stateChanged, err := recordState(rec, state, reason, now)
	if err != nil {
		return false, err
	}
	stored.ActivatedAt = rec.GetDateTime("activatedAt")
	probationChanged, err := recordProbation(st, rec, stored, state)
	if err != nil {
		return false, err
	}
	return changed || stateChanged || probationChanged, nil
}

// RefreshProbation brings an active policy record's probation up to date
// between its measurements (RefreshPolicy), without saving it; changed
// tells whether it changed.
func RefreshProbation(app core.App, rec *core.Record) (changed bool, err error) {
	return recordProbation(store.New(app), rec, storedPolicy(rec, policyOf(rec)), rec.GetString("state"))
}

// storedPolicy is the store's view of policy record rec, whose rules are p.
func storedPolicy(rec *core.Record, p enrichment.TrustPolicy) store.Policy {
	return store.Policy{ID: rec.Id, Org: enrichment.Org(rec.GetString("organization")), Client: rec.GetString("apiClient"),
		Template: rec.GetString("template"), TrustPolicy: p, ActivatedAt: rec.GetDateTime("activatedAt")}
}

// refreshEnabled stamps enabledAt on a policy just enabled (or never
// stamped), which lifts a suspension (p's state becomes learning), and
// keeps a suspension that an audit made after rec was read.
func refreshEnabled(app core.App, rec *core.Record, p *enrichment.TrustPolicy, now time.Time) (changed bool, err error) {
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
	if p.Enabled && wasEnabled && p.State != enrichment.PolicySuspended && suspendedMeanwhile(app, rec.Id) {
		p.State = enrichment.PolicySuspended // note: a record read before an audit suspended it does not lift the suspension
	}
	return changed, nil
}

// recordState sets the record's state and reason; a new state stamps
// stateChangedAt, and activatedAt when it is active.
func recordState(rec *core.Record, state, reason string, now time.Time) (changed bool, err error) {
	if state != rec.GetString("state") {
		rec.Set("state", state)
		if err := setTime(rec, "stateChangedAt", now); err != nil {
			return false, err
		}
		if state == enrichment.PolicyActive {
			if err := setTime(rec, "activatedAt", now); err != nil {
				return false, err
			}
		}
		changed = true
	}
	if reason != "" && reason != rec.GetString("stateReason") {
		rec.Set("stateReason", reason)
		changed = true
	}
	return changed, nil
}

// recordProbation sets the record's probation: the versions on probation
// under the policy in state.
func recordProbation(st *store.Store, rec *core.Record, stored store.Policy, state string) (changed bool, err error) {
	probation, err := versionsOnProbation(st, stored, state)
	if err != nil {
		return false, err
	}
	raw, err := json.Marshal(probation)
	if err != nil {
		return false, fmt.Errorf("encode the probation of trust policy %s: %w", rec.Id, err)
	}
	if sameValue(rec.Get("probation"), types.JSONRaw(raw)) {
		return false, nil
	}
	rec.Set("probation", types.JSONRaw(raw))
	return true, nil
}

// suspendedMeanwhile tells whether the stored policy id is suspended now.
func suspendedMeanwhile(app core.App, id string) bool {
	stored, err := store.New(app).Trust().FindPolicy(id)
	return err == nil && stored.State == enrichment.PolicySuspended
}

// ProbationEntry is one model version on probation under an active
// policy, as the policy's probation field lists it.
type ProbationEntry struct {
	Version string `json:"version"` // "NAME VERSION", or "none"
	enrichment.VersionTally
}

// versionsOnProbation lists the model versions an active policy accepted
// from since it became active that are still on probation, by version;
// none unless the policy is active.
func versionsOnProbation(st *store.Store, p store.Policy, state string) ([]ProbationEntry, error) {
	out := []ProbationEntry{}
	if state != enrichment.PolicyActive || p.ID == "" {
		return out, nil
	}
	tallies, err := st.Trust().VersionTallies(p)
	if err != nil {
		return nil, err
	}
	for v, t := range tallies {
		if t.OnProbation() {
			out = append(out, ProbationEntry{Version: v.String(), VersionTally: *t})
		}
	}
	slices.SortFunc(out, func(a, b ProbationEntry) int { return strings.Compare(a.Version, b.Version) })
	return out, nil
}

// setNumber sets rec's number field to value unless it holds it already,
// and tells whether it changed.
func setNumber(rec *core.Record, field string, value float64) bool {
	if rec.GetFloat(field) == value {
		return false
	}
	rec.Set(field, value)
	return true
}

// round4 rounds a share to four places, as the policies show it.
func round4(x float64) float64 {
	return math.Round(x*10000) / 10000
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
