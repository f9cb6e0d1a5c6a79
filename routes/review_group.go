package routes

import (
	"encoding/json/jsontext"
	"fmt"
	"net/http"
	"strings"

	"github.com/catalog-enrichment/enrichment/apierror"
	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/hooks"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

var reviewGroupRoutes = []route{
	{Method: http.MethodGet, Path: "/review/vocabulary", Reviewer: true, Handler: reviewVocabulary},
	{Method: http.MethodGet, Path: "/review/plan", Reviewer: true, Handler: reviewPlan},
	{Method: http.MethodPost, Path: "/review/decisions", Reviewer: true, Handler: reviewDecisions, BodyLimit: 16 << 20},
}

// reviewVocabulary answers the reviewers' page with the values and limits
// it works with, and their names for people: the page copies none of them.
func reviewVocabulary(e *core.RequestEvent) error {
	return e.JSON(http.StatusOK, enrichment.NewVocabulary(store.QueueSorts))
}

// reviewPlan answers what a group accept would decide: the revisions it
// accepts, with the fields each applies, and those it leaves because a
// more confident proposal wins one of their fields. ?revisions=ID,… plans
// an accept of those revisions; otherwise the bulk accept of ?client's
// (or every client's) confident pending revisions is planned.
func reviewPlan(e *core.RequestEvent) error {
	orgs, err := reviewedOrgs(e)
	if err != nil {
		return err
	}
	values := e.Request.URL.Query()
	var q store.PlanQuery
	errs := validation.Errors{}
	if raw := values.Get("client"); raw != "" {
		if q.Client, err = enrichment.ParseID(raw); err != nil {
			errs["client"] = validation.NewError("validation_invalid_id", "must be a record id")
		}
	}
	if values.Has("revisions") {
		ids, err := readIDList(values.Get("revisions"))
		if err != nil {
			errs["revisions"] = err
		}
		if values.Get("client") != "" {
			errs["client"] = validation.NewError("validation_not_both", "must not be given with revisions")
		}
		q.Revisions = ids
	}
	if len(errs) > 0 {
		return e.BadRequestError(firstMessage(errs), errs)
	}
	plan, err := store.New(e.App).Review().AcceptPlan(orgs, q)
	if err != nil {
		return internalError(e, "plan a group accept", err)
	}
	return e.JSON(http.StatusOK, plan)
}

// readIDList reads a comma-separated list of distinct record ids (at least
// one, at most enrichment.MaxPlanRevisions).
func readIDList(raw string) ([]int64, error) {
	parts := strings.Split(raw, ",")
	if len(parts) > enrichment.MaxPlanRevisions {
		return nil, validation.NewError("validation_too_many", fmt.Sprintf("must name at most %d revisions", enrichment.MaxPlanRevisions))
	}
	ids := make([]int64, len(parts))
	seen := make(map[int64]bool, len(parts))
	for i, part := range parts {
		id, err := enrichment.ParseID(part)
		switch {
		case err != nil:
			return nil, validation.NewError("validation_invalid_id", "must be record ids separated by commas")
		case seen[id]:
			return nil, validation.NewError("validation_duplicate", "must name each revision once")
		}
		ids[i], seen[id] = id, true
	}
	return ids, nil
}

// decisionsRequest is a group decision: one decision per revision, made in
// this order, each as a records API update of the revision would make it;
// or, with filter, the rejection of every pending revision the queue's
// filters select (review_filter.go).
type decisionsRequest struct {
	Decisions     []groupDecision `json:"decisions"`
	StopOnFailure *bool           `json:"stopOnFailure"` // a refusal stops the rest, which are skipped
	// the queue's filter parameters, by name; with Status, Reason and Comment
	Filter  map[string]any `json:"filter"`
	Status  string         `json:"status"`
	Reason  *string        `json:"reason"`
	Comment *string        `json:"comment"`
}

// stopOnFailure is the request's stopOnFailure, false when not given.
func (r decisionsRequest) stopOnFailure() bool {
	return r.StopOnFailure != nil && *r.StopOnFailure
}

// groupDecision is the decision on one revision: the fields a records API
// update would send. Those left out keep their stored values.
type groupDecision struct {
	ID             enrichment.IDText `json:"id"` // as a string or the integer the API shows
	Status         string            `json:"status"`
	ApprovedFields *[]string         `json:"approvedFields"`
	Reason         *string           `json:"reason"`
	Comment        *string           `json:"comment"`
	// objects keyed by field or "attributes.NAME", as on the record
	Corrections  jsontext.Value `json:"corrections"`
	FieldReasons jsontext.Value `json:"fieldReasons"`
}

// decision is d as the set of decisions makes it; its objects were
// checked by validate.
func (d groupDecision) decision() store.SetDecision {
	corrections, _ := enrichment.ParseObject("corrections", d.Corrections)
	fieldReasons, _ := enrichment.ParseObject("fieldReasons", d.FieldReasons)
	return store.SetDecision{Revision: string(d.ID), Decision: enrichment.Decision{Status: d.Status,
		ApprovedFields: deref(d.ApprovedFields), Reason: deref(d.Reason), Comment: deref(d.Comment),
		Corrections: corrections, FieldReasons: fieldReasons}}
}

func (r decisionsRequest) validate() error {
	errs := validation.Errors{}
	switch n := len(r.Decisions); {
	case n == 0:
		errs["decisions"] = validation.NewError("validation_required", "must name at least one revision")
	case n > enrichment.MaxPlanRevisions:
		errs["decisions"] = validation.NewError("validation_too_many", fmt.Sprintf("must name at most %d revisions", enrichment.MaxPlanRevisions))
	}
	// note: defined for the filter form only; here each decision carries its own
	for name, given := range map[string]bool{"status": r.Status != "", "reason": r.Reason != nil, "comment": r.Comment != nil} {
		if given {
			errs[name] = validation.NewError("validation_filter_only", "is given only with filter; each decision of the list carries its own")
		}
	}
	seen := map[string]bool{}
	for i, d := range r.Decisions {
		at := fmt.Sprintf("decisions.%d.", i)
		switch {
		case !isID(string(d.ID)):
			errs[at+"id"] = validation.NewError("validation_invalid_id", "must be a record id")
		case seen[string(d.ID)]:
			errs[at+"id"] = validation.NewError("validation_duplicate", "names a revision decided earlier in the request")
		}
		seen[string(d.ID)] = true
		if d.Status != enrichment.StatusAccepted && d.Status != enrichment.StatusRejected {
			errs[at+"status"] = validation.NewError("validation_in_invalid", "must be accepted or rejected")
		}
		for name, raw := range map[string]jsontext.Value{"corrections": d.Corrections, "fieldReasons": d.FieldReasons} {
			if _, err := enrichment.ParseObject(name, raw); err != nil {
				errs[at+name] = validation.NewError("validation_not_object", "must be an object keyed by field or \"attributes.NAME\"")
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// Outcomes of one decision of a group.
const (
	outcomeDecided = "decided"
	outcomeRefused = "refused"
	outcomeSkipped = "skipped" // not tried: an earlier one was refused and the group stops on failure
)

// decisionResult is what became of one decision of a group.
type decisionResult struct {
	ID       string           `json:"id"`
	Outcome  string           `json:"outcome"`
	Revision *decidedRevision `json:"revision,omitzero"` // when decided
	Error    *router.ApiError `json:"error,omitzero"`    // when refused: what the records API would have answered
}

// decidedRevision is a decided revision's decision, as stored.
type decidedRevision struct {
	ID             string   `json:"id"`
	Status         string   `json:"status"`
	ApprovedFields []string `json:"approvedFields"`
	ReviewedAt     string   `json:"reviewedAt"`
	Reason         string   `json:"reason"`
	Comment        string   `json:"comment"`
}

// decisionsResponse reports a group decision, revision by revision.
type decisionsResponse struct {
	Decided int              `json:"decided"`
	Refused int              `json:"refused"`
	Skipped int              `json:"skipped"`
	Results []decisionResult `json:"results"`
}

// reviewDecisions makes a group decision in one request, in order: each
// run of decisions on one organization's revisions is one set of
// decisions (store.DecideSet), the way every decision is made, a records
// API update's included: one refused does not undo the others. A revision
// the identity may not see is refused as not found, as the records API
// refuses it.
func reviewDecisions(e *core.RequestEvent) error {
	orgs, err := reviewedOrgs(e)
	if err != nil {
		return err
	}
	var req decisionsRequest
	if err := readJSON(e, &req); err != nil {
		return err
	}
	if req.Filter != nil {
		return reviewDecisionsByFilter(e, orgs, req)
	}
	if err := req.validate(); err != nil {
		errs := err.(validation.Errors)
		return e.BadRequestError(firstMessage(errs), errs)
	}
	ids := make([]string, len(req.Decisions))
	for i, d := range req.Decisions {
		ids[i] = string(d.ID)
	}
	orgOf, err := store.New(e.App).Review().RevisionOrgs(orgs, ids)
	if err != nil {
		return internalError(e, "read the revisions of a group decision", err)
	}
	out := decisionsResponse{Results: make([]decisionResult, 0, len(req.Decisions))}
	stopped := false
	for start := 0; start < len(req.Decisions); {
		org := orgOf[string(req.Decisions[start].ID)]
		end := start + 1
		for end < len(req.Decisions) && orgOf[string(req.Decisions[end].ID)] == org {
			end++
		}
		run := req.Decisions[start:end]
		start = end
		var results []decisionResult
		switch {
		case stopped:
			for _, d := range run {
				results = append(results, decisionResult{ID: string(d.ID), Outcome: outcomeSkipped})
			}
		case org == "": // none the identity may see
			for _, d := range run {
				results = append(results, decisionResult{ID: string(d.ID), Outcome: outcomeRefused, Error: router.NewNotFoundError("", nil)})
			}
		default:
			if results, err = decideRun(e, org, run, req.stopOnFailure()); err != nil {
				return internalError(e, "decide a group", err)
			}
		}
		out.add(results)
		stopped = out.Refused > 0 && req.stopOnFailure()
	}
	return e.JSON(http.StatusOK, out)
}

// add counts results and appends them.
func (out *decisionsResponse) add(results []decisionResult) {
	for _, res := range results {
		switch res.Outcome {
		case outcomeDecided:
			out.Decided++
		case outcomeRefused:
			out.Refused++
		default:
			out.Skipped++
		}
	}
	out.Results = append(out.Results, results...)
}

// decideRun decides a run of a group's decisions on org's revisions as one
// set.
func decideRun(e *core.RequestEvent, org enrichment.Org, run []groupDecision, stopOnFailure bool) ([]decisionResult, error) {
	ds := make([]store.SetDecision, len(run))
	for i, d := range run {
		ds[i] = d.decision()
	}
	who := hooks.Deciding(e.Auth)
	who.StopOnFailure = stopOnFailure
	outcomes, err := store.New(e.App).Review().DecideSet(org, ds, who, clock.Now(e.App))
	if err != nil {
		return nil, err
	}
	results := make([]decisionResult, len(outcomes))
	for i, o := range outcomes {
		res := decisionResult{ID: o.Revision}
		switch {
		case o.Skipped:
			res.Outcome = outcomeSkipped
		case o.Err != nil:
			apiErr, ok := apierror.From(o.Err)
			if !ok {
				return nil, o.Err
			}
			res.Outcome, res.Error = outcomeRefused, apiErr
		default:
			res.Outcome, res.Revision = outcomeDecided, &decidedRevision{ID: o.Revision, Status: o.Status,
				ApprovedFields: o.ApprovedFields, ReviewedAt: o.ReviewedAt, Reason: o.Reason, Comment: o.Comment}
		}
		results[i] = res
	}
	return results, nil
}

// deref is *p, or the zero value for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// isID tells whether s is a record id of ours.
func isID(s string) bool {
	_, err := enrichment.ParseID(s)
	return err == nil
}
