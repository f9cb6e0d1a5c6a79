package routes

import (
	"errors"
	"github.com/catalog-enrichment/enrichment/opsmetrics"
	"net/http"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

var submissionRoutes = []route{
	{Method: http.MethodPost, Path: "/products/submissions", Scope: enrichment.ScopeSubmit,
		Handler: submissionsCreate, BodyLimit: 16 << 20}, // a full batch of rich items
}

// ReplayedHeader marks a response answered again for a repeated
// externalSubmissionId.
const ReplayedHeader = "Idempotent-Replayed"

// submissionsCreate stores a batch of proposals as pending revisions, or,
// with ?dryRun=true, answers what it would store without storing anything.
func submissionsCreate(e *core.RequestEvent) error {
	dryRun, err := queryBool(e.Request.URL.Query(), "dryRun")
	if err != nil {
		return e.BadRequestError("Invalid dryRun: "+err.Error(), nil)
	}
	req, err := readSubmission(e, !dryRun)
	if err != nil {
		return err
	}
	proposals, message, errs := req.validate()
	if errs != nil {
		return e.BadRequestError(message, errs)
	}

	client, st := requestClient(e), store.New(e.App)
	opts := store.SubmitOptions{DryRun: dryRun, Selection: requestClient(e).Catalog}
	if k := req.idempotencyKey(); k != nil {
		claim, err := idempotencyOf(e.App).begin(st, client.ID, *k)
		switch {
		case errors.Is(err, errIdempotencyBusy):
			return e.Error(http.StatusConflict, "A request with this externalSubmissionId is still being processed; retry once it has finished.", nil)
		case errors.Is(err, errIdempotencyReused):
			return e.Error(http.StatusUnprocessableEntity, "This externalSubmissionId was already used with a different request body.", nil)
		case err != nil:
			return internalError(e, "look up externalSubmissionId", err)
		}
		defer claim.finish()
		if claim.replay != nil {
			e.Response.Header().Set(ReplayedHeader, "true")
			return e.Blob(http.StatusOK, "application/json", claim.replay)
		}
		opts.ExternalID, opts.Idempotency = k.Key, k
	}

	results, err := st.Proposals().Submit(requestOrg(e), client.ID, proposals, opts)
	if err != nil {
		return internalError(e, "store submission", err)
	}
	if !dryRun {
		countProposals(e.App, results)
	}
	return e.JSON(http.StatusOK, results)
}

// countProposals counts a stored submission's items by result status for
// the operators' metrics.
func countProposals(app core.App, results []enrichment.SubmissionResult) {
	byStatus := map[string]int{}
	for _, r := range results {
		byStatus[r.Status]++
	}
	proposals := opsmetrics.Of(app).Proposals
	for status, n := range byStatus {
		proposals.WithLabelValues(status).Add(float64(n))
	}
}
