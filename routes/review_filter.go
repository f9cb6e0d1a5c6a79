package routes

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	validation "github.com/pocketbase/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/core"
)

// A group decision by the queue's filters (docs/api.md): rather than
// naming revisions, the request gives the queue's triage parameters, and
// every pending revision they select (at most
// enrichment.MaxFilterRevisions) is rejected in the one request, through
// the set of decisions every decision is made by (decideRun).

// filterParams are the queue's parameters a filter may give: those that
// select revisions, not those that page or order them.
var filterParams = []string{"client", "band", "template", "sku", "exclude", "claimed", "field", "brand", "category", "q",
	"competing", "issues", "olderThan", "model", "modelVersion"}

// filterValues reads a request's filter object as the queue's query
// parameters (strings, numbers and booleans as the query would spell
// them); each bad one is added to errs under filter.NAME.
func filterValues(filter map[string]any, errs validation.Errors) url.Values {
	values := url.Values{}
	for name, v := range filter {
		at := "filter." + name
		if !slices.Contains(filterParams, name) {
			errs[at] = validation.NewError("validation_unknown_filter", "is not one of the queue's filters")
			continue
		}
		// note: a member without a value is refused, where the queue reads
		// an empty parameter as none: here it would widen the rejection to
		// every value of that filter
		switch x := v.(type) {
		case string:
			if x == "" {
				errs[at] = validation.NewError("validation_required", "must not be empty: leave the filter out to select every value")
				continue
			}
			values.Set(name, x)
		case float64:
			values.Set(name, strconv.FormatFloat(x, 'f', -1, 64))
		case bool:
			values.Set(name, strconv.FormatBool(x))
		case nil:
			errs[at] = validation.NewError("validation_required", "must not be null: leave the filter out to select every value")
		default:
			errs[at] = validation.NewError("validation_invalid_type", "must be a string, number or boolean")
		}
	}
	return values
}

// validateFilter checks a group decision by filter: a rejection, with no
// list of decisions beside it.
func (r decisionsRequest) validateFilter(errs validation.Errors) {
	// note: given at all, an empty list or false included: the request
	// meant something else, and a filter's rejection is not to be guessed
	if r.Decisions != nil {
		errs["decisions"] = validation.NewError("validation_not_both", "must not be given with filter")
	}
	if r.StopOnFailure != nil {
		errs["stopOnFailure"] = validation.NewError("validation_list_only", "applies to a list of decisions, not to a filter")
	}
	if r.Status != enrichment.StatusRejected {
		errs["status"] = validation.NewError("validation_in_invalid", "must be rejected: a filter rejects what it selects")
	}
}

// reviewDecisionsByFilter rejects every pending revision of orgs the
// request's filter selects, each organization's as one set, and answers
// as a group decision does.
func reviewDecisionsByFilter(e *core.RequestEvent, orgs []enrichment.Org, req decisionsRequest) error {
	errs := validation.Errors{}
	req.validateFilter(errs)
	values := filterValues(req.Filter, errs)
	q, queueErrs := readQueueValues(e, values)
	for name, err := range queueErrs {
		if name != "page" && name != "pageSize" && name != "sort" {
			errs["filter."+name] = err
		}
	}
	if len(errs) > 0 {
		return e.BadRequestError(firstMessage(errs), errs)
	}
	selected, err := store.New(e.App).Review().QueueSelection(orgs, q, enrichment.MaxFilterRevisions)
	if err != nil {
		return internalError(e, "select the revisions of a group decision", err)
	}
	if len(selected) > enrichment.MaxFilterRevisions {
		errs["filter"] = validation.NewError("validation_too_many",
			fmt.Sprintf("selects more than %d revisions; narrow it", enrichment.MaxFilterRevisions))
		return e.BadRequestError(firstMessage(errs), errs)
	}
	byOrg := map[enrichment.Org][]groupDecision{}
	for _, r := range selected {
		byOrg[enrichment.Org(r.Org)] = append(byOrg[enrichment.Org(r.Org)],
			groupDecision{ID: enrichment.IDText(r.ID), Status: req.Status, Reason: req.Reason, Comment: req.Comment})
	}
	ordered := make([]enrichment.Org, 0, len(byOrg))
	for org := range byOrg {
		ordered = append(ordered, org)
	}
	sort.Slice(ordered, func(i, j int) bool { return ordered[i] < ordered[j] })
	out := decisionsResponse{Results: make([]decisionResult, 0, len(selected))}
	for _, org := range ordered {
		results, err := decideRun(e, org, byOrg[org], false)
		if err != nil {
			return internalError(e, "decide a group by filter", err)
		}
		out.add(results)
	}
	return e.JSON(http.StatusOK, out)
}
