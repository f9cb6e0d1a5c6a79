package routes

import (
	"errors"
	"strconv"
	"sync"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// Refusals of an externalSubmissionId.
var (
	// errIdempotencyBusy: the same key is being processed by another request (409).
	errIdempotencyBusy = errors.New("a request with this externalSubmissionId is still being processed")
	// errIdempotencyReused: the key was first used with another body (422).
	errIdempotencyReused = errors.New("this externalSubmissionId was already used with a different request body")
)

// idempotency keeps the externalSubmissionIds of one app: the ones being
// processed in this process (the only one that serves the API), and,
// through the store, the ones answered before with their responses.
type idempotency struct {
	inFlight sync.Map // "client\x00key" → struct{}
}

const idempotencyKey = "enrichmentIdempotency"

// idempotencyOf returns app's idempotency keeper, made on first use.
func idempotencyOf(app core.App) *idempotency {
	return app.Store().GetOrSet(idempotencyKey, func() any { return &idempotency{} }).(*idempotency)
}

// idempotencyClaim is a request's hold on its key: a stored response to
// answer again (replay), or the right to proceed, storing the response with
// the submission (store.SubmitOptions.Idempotency). finish lets the key go.
type idempotencyClaim struct {
	replay []byte
	finish func()
}

// begin claims client's key for one request: errIdempotencyBusy while
// another request holds it, errIdempotencyReused when it was answered for
// another body, a replay when answered for this one, else a claim to proceed.
func (i *idempotency) begin(st *store.Store, client int64, key store.IdempotencyKey) (idempotencyClaim, error) {
	flight := strconv.FormatInt(client, 10) + "\x00" + key.Key
	if _, busy := i.inFlight.LoadOrStore(flight, struct{}{}); busy {
		return idempotencyClaim{}, errIdempotencyBusy
	}
	claim := idempotencyClaim{finish: func() { i.inFlight.Delete(flight) }}
	stored, err := st.Proposals().FindIdempotent(client, key.Key)
	switch {
	case errors.Is(err, enrichment.ErrNotFound):
		return claim, nil
	case err != nil:
		claim.finish()
		return idempotencyClaim{}, err
	case stored.RequestHash != key.RequestHash:
		claim.finish()
		return idempotencyClaim{}, errIdempotencyReused
	}
	claim.replay = stored.Response
	return claim, nil
}
