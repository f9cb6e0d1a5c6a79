package routes

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

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

// idempotencyRetention is how long an externalSubmissionId is remembered.
const idempotencyRetention = 31 * 24 * time.Hour

// inFlight holds the (client, externalSubmissionId) pairs being processed
// by this process, which is the only one that serves the API.
var inFlight sync.Map

// submissionsCreate stores a batch of proposals as pending revisions, or,
// with ?dryRun=true, answers what it would store without storing anything.
func submissionsCreate(e *core.RequestEvent) error {
	dryRun, err := queryBool(e.Request.URL.Query(), "dryRun")
	if err != nil {
		return e.BadRequestError("Invalid dryRun: "+err.Error(), nil)
	}
	var req submissionRequest
	if err := readJSON(e, &req); err != nil {
		return err
	}
	idempotent := req.ExternalSubmissionID != nil && *req.ExternalSubmissionID != "" && !dryRun
	var hash chan string
	if idempotent {
		// note: on the other core while this one validates: a tenth of a
		// 1000-item batch's time
		hash = make(chan string, 1)
		go func() { hash <- requestHash(req) }()
	}
	proposals, message, errs := req.validate()
	if errs != nil {
		return e.BadRequestError(message, errs)
	}

	client := requestClient(e)
	opts := store.SubmitOptions{DryRun: dryRun}
	if idempotent {
		opts.ExternalID = *req.ExternalSubmissionID
		key := store.IdempotencyKey{Key: opts.ExternalID, RequestHash: <-hash}
		flight := strconv.FormatInt(client.ID, 10) + "\x00" + key.Key
		if _, busy := inFlight.LoadOrStore(flight, struct{}{}); busy {
			return e.Error(http.StatusConflict, "A request with this externalSubmissionId is still being processed; retry once it has finished.", nil)
		}
		defer inFlight.Delete(flight)

		stored, err := store.New(e.App).FindIdempotent(client.ID, key.Key)
		switch {
		case err == nil && stored.RequestHash != key.RequestHash:
			return e.Error(http.StatusUnprocessableEntity, "This externalSubmissionId was already used with a different request body.", nil)
		case err == nil:
			e.Response.Header().Set(ReplayedHeader, "true")
			return e.Blob(http.StatusOK, "application/json", stored.Response)
		case !errors.Is(err, store.ErrNotFound):
			return internalError(e, "look up externalSubmissionId", err)
		}
		opts.Idempotency = &key
	}

	results, err := store.New(e.App).Submit(requestOrg(e), client.ID, proposals, opts)
	if err != nil {
		return internalError(e, "store submission", err)
	}
	return e.JSON(http.StatusOK, results)
}

// requestHash identifies a submission's content whatever its formatting:
// the same JSON values give the same hash.
func requestHash(req submissionRequest) string {
	encoded, _ := json.Marshal(req)
	// note: RFC 8785's form (members sorted, numbers and strings in one
	// spelling); for real requests the same bytes as the decode-to-any and
	// deterministic re-encode used before, in a quarter of the memory
	canonical := jsontext.Value(encoded)
	_ = canonical.Canonicalize()
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// purgeIdempotencyKeys forgets externalSubmissionIds older than the retention.
func purgeIdempotencyKeys(app core.App) {
	n, err := store.New(app).PurgeIdempotent(time.Now().Add(-idempotencyRetention))
	if err != nil {
		app.Logger().Error("enrichment: purge idempotency keys", "error", err.Error())
		return
	}
	if n > 0 {
		app.Logger().Info("enrichment: purged idempotency keys", "count", n)
	}
}
