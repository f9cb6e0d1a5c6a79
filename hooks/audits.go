package hooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/catalog-enrichment/enrichment/clock"
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
	// note: an update that leaves the audit as it read it closes nothing,
	// even when a policy accepted the revision (and drew it for audit)
	// since: it is a decision, refused as final
	if to == from || to == rev.Original().GetString("audit") {
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
	changed := changedFields(stored, rev, func(f core.Field) bool { return !slices.Contains(decisionFields, f.GetName()) })
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
	rev.Set("auditedBy", deciderOf(rev).Name)
	return true, setTime(rev, "auditedAt", clock.Now(app))
}

// auditError is a refusal about the audit field.
func auditError(code, message, detail string) error {
	return router.NewBadRequestError(message, validation.Errors{"audit": validation.NewError(code, detail)})
}

// afterAudit applies what closing rev's audit does, in the transaction that
// saved it: a reverted one is rolled back (revertAudited); the audit is
// counted in the trust counters (store.CountAudit); then the policy's
// audits closed since it became active may suspend it (judgePolicy).
func afterAudit(app core.App, rev *core.Record) error {
	confirmed := rev.GetString("audit") == enrichment.AuditConfirmed
	if !confirmed {
		if err := revertAudited(app, rev); err != nil {
			return err
		}
	}
	st := store.New(app)
	if err := st.Trust().CountAudit(enrichment.Org(rev.GetString("organization")), rev.Id, confirmed, clock.Now(app)); err != nil {
		return err
	}
	id := rev.GetString("policy")
	if id == "" {
		return nil
	}
	return judgePolicy(app, st, id)
}

// judgePolicy suspends an enabled policy that is not suspended when its
// audits closed since it last became active withdraw it
// (enrichment.Withdraws).
func judgePolicy(app core.App, st *store.Store, id string) error {
	p, err := st.Trust().FindPolicy(id)
	if err != nil {
		return err
	}
	if !p.Enabled || p.State == enrichment.PolicySuspended || p.ActivatedAt.IsZero() {
		return nil
	}
	closed, err := st.Trust().ClosedAudits(id, p.ActivatedAt.Time())
	if err != nil {
		return err
	}
	if suspend, reason := enrichment.Withdraws(closed, p.TargetPrecision); suspend {
		return SuspendPolicy(app, id, reason, clock.Now(app))
	}
	return nil
}

// revertAudited rolls back rev, whose audit was closed as reverted
// (store.Rollback of that one revision, by whoever closed the audit); rev
// then shows the revision as the rollback left it.
func revertAudited(app core.App, rev *core.Record) error {
	id, err := recordID(rev)
	if err != nil {
		return err
	}
	res, err := store.New(app).Review().Rollback(enrichment.Org(rev.GetString("organization")), store.RollbackSelection{Revision: id},
		rollerOf(rev), clock.Now(app))
	if err != nil {
		return fmt.Errorf("roll back revision %s of a reverted audit: %w", rev.Id, err)
	}
	if res.Revisions == 0 {
		return nil
	}
	// note: saved already; what the answer and realtime show
	fresh, err := app.FindRecordById(rev.Collection(), rev.Id)
	if err != nil {
		return fmt.Errorf("reload revision %s: %w", rev.Id, err)
	}
	for name, value := range fresh.FieldsData() {
		rev.Set(name, value)
	}
	return nil
}
