package routes

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/hooks"
	"github.com/catalog-enrichment/enrichment/schema"
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
	plan, err := store.New(e.App).AcceptPlan(orgs, q)
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
// this order, each as a records API update of the revision would make it.
type decisionsRequest struct {
	Decisions     []groupDecision `json:"decisions"`
	StopOnFailure bool            `json:"stopOnFailure"` // a refusal stops the rest, which are skipped
}

// groupDecision is the decision on one revision: the fields a records API
// update would send. Those left out keep their stored values.
type groupDecision struct {
	ID             string    `json:"id"`
	Status         string    `json:"status"`
	ApprovedFields *[]string `json:"approvedFields"`
	Reason         *string   `json:"reason"`
	Comment        *string   `json:"comment"`
}

func (r decisionsRequest) validate() error {
	errs := validation.Errors{}
	switch n := len(r.Decisions); {
	case n == 0:
		errs["decisions"] = validation.NewError("validation_required", "must name at least one revision")
	case n > enrichment.MaxPlanRevisions:
		errs["decisions"] = validation.NewError("validation_too_many", fmt.Sprintf("must name at most %d revisions", enrichment.MaxPlanRevisions))
	}
	seen := map[string]bool{}
	for i, d := range r.Decisions {
		at := fmt.Sprintf("decisions.%d.", i)
		switch {
		case !isID(d.ID):
			errs[at+"id"] = validation.NewError("validation_invalid_id", "must be a record id")
		case seen[d.ID]:
			errs[at+"id"] = validation.NewError("validation_duplicate", "names a revision decided earlier in the request")
		}
		seen[d.ID] = true
		if d.Status != enrichment.StatusAccepted && d.Status != enrichment.StatusRejected {
			errs[at+"status"] = validation.NewError("validation_in_invalid", "must be accepted or rejected")
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

// reviewDecisions makes a group decision in one request: each revision is
// saved as a records API update of it would save it, in a transaction of
// its own, so the review hook (hooks/revisions.go) applies every rule and
// effect of a decision; one refused does not undo the others. A revision
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
	if err := req.validate(); err != nil {
		errs := err.(validation.Errors)
		return e.BadRequestError(firstMessage(errs), errs)
	}
	ids := make([]string, len(req.Decisions))
	for i, d := range req.Decisions {
		ids[i] = d.ID
	}
	records, err := e.App.FindRecordsByIds(schema.Revisions, ids)
	if err != nil {
		return internalError(e, "read the revisions of a group decision", err)
	}
	byID := make(map[string]*core.Record, len(records))
	for _, r := range records {
		if slices.Contains(orgs, enrichment.Org(r.GetString("organization"))) {
			byID[r.Id] = r
		}
	}
	out := decisionsResponse{Results: make([]decisionResult, 0, len(req.Decisions))}
	stopped := false
	for _, d := range req.Decisions {
		res := decisionResult{ID: d.ID}
		switch rev := byID[d.ID]; {
		case stopped:
			res.Outcome = outcomeSkipped
		case rev == nil:
			res.Outcome, res.Error = outcomeRefused, router.NewNotFoundError("", nil)
		default:
			if apiErr := saveDecision(e, rev, d); apiErr != nil {
				res.Outcome, res.Error = outcomeRefused, apiErr
			} else {
				res.Outcome, res.Revision = outcomeDecided, &decidedRevision{ID: rev.Id, Status: rev.GetString("status"),
					ApprovedFields: rev.GetStringSlice("approvedFields"), ReviewedAt: rev.GetString("reviewedAt"),
					Reason: rev.GetString("reason"), Comment: rev.GetString("comment")}
			}
		}
		switch res.Outcome {
		case outcomeDecided:
			out.Decided++
		case outcomeRefused:
			out.Refused++
			stopped = req.StopOnFailure
		default:
			out.Skipped++
		}
		out.Results = append(out.Results, res)
	}
	return e.JSON(http.StatusOK, out)
}

// saveDecision saves d on rev as the records API saves an update: the
// error is what it would answer (an unexpected one is also logged).
func saveDecision(e *core.RequestEvent, rev *core.Record, d groupDecision) *router.ApiError {
	rev.Set("status", d.Status)
	if d.ApprovedFields != nil {
		rev.Set("approvedFields", *d.ApprovedFields)
	}
	if d.Reason != nil {
		rev.Set("reason", *d.Reason)
	}
	if d.Comment != nil {
		rev.Set("comment", *d.Comment)
	}
	hooks.MarkDecider(rev, e.Auth)
	err := e.App.Save(rev)
	if err == nil {
		return nil
	}
	var apiErr *router.ApiError
	if errors.As(err, &apiErr) {
		return apiErr
	}
	var invalid validation.Errors
	if !errors.As(err, &invalid) {
		e.App.Logger().Error("enrichment: decide a revision of a group", "revision", rev.Id, "error", err.Error())
	}
	return router.NewBadRequestError("Failed to update record.", err)
}

// isID tells whether s is a record id of ours.
func isID(s string) bool {
	_, err := enrichment.ParseID(s)
	return err == nil
}
