package store

import (
	"database/sql"
	"encoding/json/v2"
	"errors"
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// IdempotencyRetention is how long an externalSubmissionId is remembered.
const IdempotencyRetention = 31 * 24 * time.Hour

// IdempotencyKey is a client's externalSubmissionId with the hash of the
// request that first used it.
type IdempotencyKey struct {
	Key         string
	RequestHash string
}

// StoredResponse is what a client's earlier request with the same key got.
type StoredResponse struct {
	RequestHash string
	Response    []byte // the JSON body that was sent
}

// FindIdempotent returns the stored response of client's key; enrichment.ErrNotFound
// when the key was not used (or has expired).
func (s *Proposals) FindIdempotent(client int64, key string) (StoredResponse, error) {
	var row struct {
		RequestHash string `db:"requestHash"`
		Response    []byte `db:"response"`
	}
	err := s.db().Select("requestHash", "response").From(schema.IdempotencyTable).
		Where(dbx.HashExp{"client": FormatID(client), "key": key}).One(&row)
	if errors.Is(err, sql.ErrNoRows) {
		return StoredResponse{}, enrichment.NotFound("idempotency key")
	}
	if err != nil {
		return StoredResponse{}, fmt.Errorf("find idempotency key of client %d: %w", client, err)
	}
	return StoredResponse{RequestHash: row.RequestHash, Response: row.Response}, nil
}

func (s *Proposals) saveIdempotent(client int64, key IdempotencyKey, results []enrichment.SubmissionResult) error {
	body, err := json.Marshal(results)
	if err != nil {
		return fmt.Errorf("encode response for idempotency: %w", err)
	}
	_, err = s.db().Insert(schema.IdempotencyTable, dbx.Params{
		"client": FormatID(client), "key": key.Key, "requestHash": key.RequestHash,
		"response": body, "created": FormatTime(clock.Now(s.app)),
	}).Execute()
	if err != nil {
		return fmt.Errorf("save idempotency key of client %d: %w", client, err)
	}
	return nil
}

// PurgeIdempotent forgets keys used before cutoff; it returns how many.
func (s *Proposals) PurgeIdempotent(cutoff time.Time) (int64, error) {
	res, err := s.db().Delete(schema.IdempotencyTable, dbx.NewExp("created < {:cutoff}",
		dbx.Params{"cutoff": FormatTime(cutoff)})).Execute()
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	return res.RowsAffected()
}
