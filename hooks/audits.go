package hooks

import (
	"fmt"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

// Audits (docs/review.md): a revision a trust policy accepted and drew for
// audit waits with audit "pending" until a reviewer closes it, through the
// records API or the dashboard (an update of audit alone) or the
// reviewers' route, with "confirmed" or "reverted" (a rollback of the
// revision). Closing one may suspend its policy.

// closesAudit tells whether the update of rev changes its audit (stored:
// the revision as read in the transaction); if so, it
// checks that it closes a pending audit and changes nothing else, and
// stamps who closed it when. Only app (the transaction) is used.
func closesAudit(app core.App, stored, rev *core.Record) (bool, error) {
	to, from := rev.GetString("audit"), stored.GetString("audit")
	if to == from {
		return false, nil
	}
	if from != enrichment.AuditPending {
		return false, auditError("validation_no_audit", "This revision has no audit waiting to be closed.",
			"Only a pending audit can be closed.")
	}
	if to != enrichment.AuditConfirmed && to != enrichment.AuditReverted {
		return false, auditError("validation_invalid_audit", "An audit is closed with confirmed or reverted.",
			"Must be confirmed or reverted.")
	}
	var changed []string
	for _, name := range decisionFields {
		if !sameValue(stored.Get(name), rev.Get(name)) {
			changed = append(changed, name)
		}
	}
	if len(changed) > 0 {
		errs := validation.Errors{}
		for _, name := range changed {
			errs[name] = validation.NewError("validation_audit_alone", "An audit is closed alone.")
		}
		return false, router.NewBadRequestError(fmt.Sprintf("An audit is closed alone, without changing %s.", strings.Join(changed, ", ")), errs)
	}
	if err := checkReadOnly(app, stored, rev); err != nil {
		return false, err
	}
	for _, name := range serverFields {
		if name != "audit" {
			rev.Set(name, stored.Get(name))
		}
	}
	who, fromRequest := rev.GetRaw(deciderKey).(string)
	if !fromRequest {
		who = systemDecider
	}
	rev.Set("auditedBy", who)
	return true, setTime(rev, "auditedAt", time.Now())
}

// auditError is a refusal about the audit field.
func auditError(code, message, detail string) error {
	return router.NewBadRequestError(message, validation.Errors{"audit": validation.NewError(code, detail)})
}

// afterAudit applies what closing rev's audit does, in the transaction that
// saved it: a reverted one is rolled back (store.Rollback of that one
// revision, by whoever closed the audit), and rev then shows the revision
// as the rollback left it; then the policy's closed audits may suspend it
// (enrichment.Suspends). reverted tells whether a rollback happened.
func afterAudit(app core.App, rev *core.Record) (reverted bool, err error) {
	st := store.New(app)
	if rev.GetString("audit") == enrichment.AuditReverted {
		id, err := recordID(rev)
		if err != nil {
			return false, err
		}
		res, err := st.Review().Rollback(enrichment.Org(rev.GetString("organization")), store.RollbackSelection{Revision: id},
			rev.GetString("auditedBy"), time.Now())
		if err != nil {
			return false, fmt.Errorf("roll back revision %s of a reverted audit: %w", rev.Id, err)
		}
		if reverted = res.Revisions > 0; reverted {
			// note: saved already; what the answer and realtime show
			fresh, err := app.FindRecordById(rev.Collection(), rev.Id)
			if err != nil {
				return false, fmt.Errorf("reload revision %s: %w", rev.Id, err)
			}
			for name, value := range fresh.FieldsData() {
				rev.Set(name, value)
			}
		}
	}
	id := rev.GetString("policy")
	if id == "" {
		return reverted, nil
	}
	p, err := st.Trust().FindPolicy(id)
	if err != nil {
		return reverted, err
	}
	if !p.Enabled || p.State == enrichment.PolicySuspended {
		return reverted, nil
	}
	closed, err := st.Trust().ClosedAudits(id, p.EnabledAt.Time())
	if err != nil {
		return reverted, err
	}
	if suspend, reason := enrichment.Suspends(closed, p.TargetPrecision); suspend {
		return reverted, SuspendPolicy(app, id, reason, time.Now())
	}
	return reverted, nil
}
