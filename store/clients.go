package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

type clientRow struct {
	ID           string         `db:"id"`
	Organization string         `db:"organization"`
	Name         string         `db:"name"`
	KeyPrefix    string         `db:"keyPrefix"`
	Scopes       types.JSONRaw  `db:"scopes"`
	Active       bool           `db:"active"`
	RateLimit    int            `db:"rateLimit"`
	LastUsedAt   types.DateTime `db:"lastUsedAt"`
	PreviousEnd  types.DateTime `db:"previousKeyExpiresAt"`
	Catalog      types.JSONRaw  `db:"catalog"`
}

var clientColumns = []string{"id", "organization", "name", "keyPrefix", "scopes", "active", "rateLimit", "lastUsedAt", "previousKeyExpiresAt", "catalog"}

func (r clientRow) client() enrichment.Client {
	return enrichment.Client{
		ID:         sqlparts.StoredID(r.ID),
		Org:        enrichment.Org(r.Organization),
		Name:       r.Name,
		KeyPrefix:  r.KeyPrefix,
		Scopes:     decodeStrings(r.Scopes),
		Active:     r.Active,
		RateLimit:  r.RateLimit,
		LastUsedAt: r.LastUsedAt.Time(),

		PreviousKeyExpiresAt: r.PreviousEnd.Time(),
		Catalog:              enrichment.SelectionOf(r.Catalog),
	}
}

// clientsCache keeps clients by key hash: found ones only, so unknown keys
// cannot fill it.
var clientsCache = cacheKind[string, enrichment.Client]{name: "enrichmentClients", limit: 10_000}

// ClientByKeyHash finds the API client whose current key, or rotated-out key
// still in its grace period, hashes to keyHash, active or not; enrichment.ErrNotFound
// when there is none. It is the one lookup that is not scoped to an
// organization, because it is what yields the organization. The client is
// cached while its organization's generation holds (a key's creation,
// revocation and rotation move it), and until the grace of a rotated-out key
// runs out at now.
func (s *Accounts) ClientByKeyHash(keyHash string, now time.Time) (enrichment.Client, error) {
	return cached(s, clientsCache, keyHash, now, func() (loaded[enrichment.Client], error) {
		c, generation, keyEnds, err := s.clientByKeyHashAtGeneration(keyHash, now)
		return loaded[enrichment.Client]{value: c, org: c.Org, generation: generation, until: keyEnds}, err
	})
}

// clientByKeyHashAtGeneration reads the client of keyHash with the
// generation of its organization in the same statement (one snapshot), so
// the client can be cached under it, and when the key stops working: the
// end of its grace for a rotated-out key, zero for a current one. A
// rotated-out key counts while its grace runs at now.
func (s *Accounts) clientByKeyHashAtGeneration(keyHash string, now time.Time) (c enrichment.Client, generation int64, keyEnds time.Time, err error) {
	var row struct {
		clientRow
		Generation int64          `db:"generation"`
		KeyEnds    types.DateTime `db:"keyEnds"`
	}
	columns := make([]string, 0, len(clientColumns)+1)
	for _, c := range clientColumns {
		columns = append(columns, "c."+c)
	}
	keyEndsSQL := `CASE WHEN c.keyHash = {:hash} THEN '' WHEN c.previousKeyHash = {:hash} THEN c.previousKeyExpiresAt
		ELSE (SELECT r.expiresAt FROM ` + schema.RetiredKeysTable + ` r WHERE r.keyHash = {:hash}) END AS keyEnds`
	err = s.db().Select(append(columns, "COALESCE(g.generation, 0) AS generation", keyEndsSQL)...).
		From(schema.APIClients+" c").
		LeftJoin(schema.GenerationsTable+" g", dbx.NewExp("g.organization = c.organization")).
		Where(dbx.Or(
			dbx.HashExp{"c.keyHash": keyHash},
			dbx.And(dbx.HashExp{"c.previousKeyHash": keyHash},
				dbx.NewExp("c.previousKeyExpiresAt > {:now}", dbx.Params{"now": FormatTime(now)})),
			dbx.NewExp("c.id = (SELECT r.client FROM "+schema.RetiredKeysTable+" r WHERE r.keyHash = {:hash} AND r.expiresAt > {:now})",
				dbx.Params{"hash": keyHash, "now": FormatTime(now)}),
		)).AndBind(dbx.Params{"hash": keyHash}).Limit(1).One(&row)
	if errors.Is(err, sql.ErrNoRows) {
		return enrichment.Client{}, 0, time.Time{}, enrichment.NotFound("API client")
	}
	if err != nil {
		return enrichment.Client{}, 0, time.Time{}, fmt.Errorf("find api client by key: %w", err)
	}
	return row.client(), row.Generation, row.KeyEnds.Time(), nil
}

// TouchClient records that a client's key was used at now. It writes the
// column directly: no hooks, and the record's updated time stays put.
func (s *Accounts) TouchClient(id int64, now time.Time) error {
	_, err := s.db().Update("api_clients",
		dbx.Params{"lastUsedAt": FormatTime(now)},
		dbx.HashExp{"id": FormatID(id)}).Execute()
	if err != nil {
		return fmt.Errorf("touch api client %d: %w", id, err)
	}
	return nil
}

// RecordKeyUse touches c, found by keyHash, at now; the touch moves no
// generation, so the cached client learns it here.
func (s *Accounts) RecordKeyUse(keyHash string, c enrichment.Client, now time.Time) error {
	if err := s.TouchClient(c.ID, now); err != nil {
		return err
	}
	c.LastUsedAt = now
	clientsCache.of(s.app).refresh(keyHash, c)
	return nil
}

// Clients lists an organization's API clients, newest last.
func (s *Accounts) Clients(org enrichment.Org) ([]enrichment.Client, error) {
	var rows []clientRow
	err := s.db().Select(clientColumns...).From("api_clients").
		Where(dbx.HashExp{"organization": string(org)}).
		OrderBy("CAST(id AS INTEGER)").All(&rows)
	if err != nil {
		return nil, fmt.Errorf("list api clients of organization %s: %w", org, err)
	}
	out := make([]enrichment.Client, len(rows))
	for i, r := range rows {
		out[i] = r.client()
	}
	return out, nil
}

// CreateOrg creates an organization and returns its id.
func (s *Accounts) CreateOrg(name string) (int64, error) {
	rec, err := s.newRecord("organizations")
	if err != nil {
		return 0, err
	}
	rec.Set("name", name)
	rec.Set("proposalTtlDays", enrichment.DefaultProposalTTLDays)
	if err := s.app.Save(rec); err != nil {
		return 0, fmt.Errorf("create organization: %w", err)
	}
	return sqlparts.StoredID(rec.Id), nil
}

// CountClientRevisions counts the revisions API client submitted for org.
func (s *Accounts) CountClientRevisions(org enrichment.Org, client int64) (int, error) {
	var n int
	err := s.db().Select("COUNT(*)").From(schema.Revisions).
		Where(dbx.HashExp{"organization": string(org), "apiClient": FormatID(client)}).Row(&n)
	if err != nil {
		return 0, fmt.Errorf("count revisions of client %d: %w", client, err)
	}
	return n, nil
}

// Organizations lists every organization, in id order: for superusers,
// who see them all.
func (s *Accounts) Organizations() ([]enrichment.Org, error) {
	var ids []string
	err := s.db().Select("id").From(schema.Organizations).OrderBy("CAST(id AS INTEGER)").Column(&ids)
	if err != nil {
		return nil, fmt.Errorf("list organizations: %w", err)
	}
	orgs := make([]enrichment.Org, len(ids))
	for i, id := range ids {
		orgs[i] = enrichment.Org(id)
	}
	return orgs, nil
}

// OrgExists reports whether the organization exists.
func (s *Accounts) OrgExists(org enrichment.Org) (bool, error) {
	var n int
	err := s.db().Select("COUNT(*)").From("organizations").
		Where(dbx.HashExp{"id": string(org)}).Row(&n)
	if err != nil {
		return false, fmt.Errorf("find organization %s: %w", org, err)
	}
	return n > 0, nil
}

// NewClient is what creating an API client needs; the raw key is not part of
// it, only its hash.
type NewClient struct {
	Name      string
	Scopes    []string
	KeyHash   string
	KeyPrefix string
	RateLimit int // requests per second; 0: unlimited
	// Catalog is what its keys see, templates and brands by id or name
	// (checked and resolved when saved: hooks/client_catalogs.go).
	Catalog enrichment.Selection
}

// CreateClient stores an active API client of org and returns its id.
func (s *Accounts) CreateClient(org enrichment.Org, c NewClient) (int64, error) {
	rec, err := s.newRecord("api_clients")
	if err != nil {
		return 0, err
	}
	rec.Set("organization", string(org))
	rec.Set("name", c.Name)
	rec.Set("scopes", c.Scopes)
	rec.Set("keyHash", c.KeyHash)
	rec.Set("keyPrefix", c.KeyPrefix)
	rec.Set("active", true)
	rec.Set("rateLimit", c.RateLimit)
	rec.Set("catalog", c.Catalog)
	if err := s.app.Save(rec); err != nil {
		return 0, fmt.Errorf("create api client: %w", err)
	}
	return sqlparts.StoredID(rec.Id), nil
}

// clientRecord is API client id's record; ErrNotFound when there is none.
func (s *Accounts) clientRecord(id int64) (*core.Record, error) {
	rec, err := s.app.FindRecordById(schema.APIClients, FormatID(id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, enrichment.NotFound("API client")
	}
	if err != nil {
		return nil, fmt.Errorf("find api client %d: %w", id, err)
	}
	return rec, nil
}

// SelectCatalog sets the catalog an API client's keys see and returns it
// as stored.
func (s *Accounts) SelectCatalog(id int64, sel enrichment.Selection) (enrichment.Selection, error) {
	rec, err := s.clientRecord(id)
	if err != nil {
		return enrichment.Selection{}, err
	}
	rec.Set("catalog", sel)
	if err := s.app.Save(rec); err != nil {
		return enrichment.Selection{}, fmt.Errorf("select the catalog of api client %d: %w", id, err)
	}
	return enrichment.SelectionOf([]byte(rec.GetString("catalog"))), nil
}

// RevokeClient deactivates an API client; its key is refused from then on.
func (s *Accounts) RevokeClient(id int64) (enrichment.Client, error) {
	rec, err := s.clientRecord(id)
	if err != nil {
		return enrichment.Client{}, err
	}
	rec.Set("active", false)
	if err := s.app.Save(rec); err != nil {
		return enrichment.Client{}, fmt.Errorf("revoke api client %d: %w", id, err)
	}
	return enrichment.Client{ID: id, Org: enrichment.Org(rec.GetString("organization")),
		Name: rec.GetString("name"), KeyPrefix: rec.GetString("keyPrefix"),
		Scopes: rec.GetStringSlice("scopes")}, nil
}

// RotateKey gives an active API client a new key. The old key keeps working
// until now+grace (not at all when grace is 0), so callers can switch over;
// a key rotated out earlier keeps its own grace period.
func (s *Accounts) RotateKey(id int64, keyHash, keyPrefix string, grace time.Duration) (enrichment.Client, error) {
	var out enrichment.Client
	err := s.Transaction(func(tx *Store) error {
		var err error
		out, err = tx.Accounts().rotateKey(id, keyHash, keyPrefix, grace)
		return err
	})
	return out, err
}

// rotateKey is RotateKey in the caller's transaction.
func (s *Accounts) rotateKey(id int64, keyHash, keyPrefix string, grace time.Duration) (enrichment.Client, error) {
	rec, err := s.clientRecord(id)
	if err != nil {
		return enrichment.Client{}, err
	}
	if !rec.GetBool("active") {
		return enrichment.Client{}, fmt.Errorf("api client %d is revoked; create a new key instead", id)
	}
	if err := s.retirePreviousKey(rec, clock.Now(s.app)); err != nil {
		return enrichment.Client{}, err
	}
	rec.Set("previousKeyHash", "")
	rec.Set("previousKeyExpiresAt", "")
	if grace > 0 {
		rec.Set("previousKeyHash", rec.GetString("keyHash"))
		rec.Set("previousKeyExpiresAt", FormatTime(clock.Now(s.app).Add(grace)))
	}
	rec.Set("keyHash", keyHash)
	rec.Set("keyPrefix", keyPrefix)
	if err := s.app.Save(rec); err != nil {
		return enrichment.Client{}, fmt.Errorf("rotate key of api client %d: %w", id, err)
	}
	return enrichment.Client{ID: id, Org: enrichment.Org(rec.GetString("organization")), Name: rec.GetString("name"),
		KeyPrefix: keyPrefix, Scopes: rec.GetStringSlice("scopes"), Active: true, RateLimit: rec.GetInt("rateLimit"),
		PreviousKeyExpiresAt: rec.GetDateTime("previousKeyExpiresAt").Time()}, nil
}

// retirePreviousKey keeps the client's previous key, while its grace lasts,
// among the retired keys, and forgets the retired keys whose grace is over.
func (s *Accounts) retirePreviousKey(rec *core.Record, now time.Time) error {
	stamp := FormatTime(now)
	if _, err := s.db().Delete(schema.RetiredKeysTable, dbx.NewExp("expiresAt <= {:now}", dbx.Params{"now": stamp})).
		Execute(); err != nil {
		return fmt.Errorf("forget expired retired keys: %w", err)
	}
	hash, until := rec.GetString("previousKeyHash"), rec.GetDateTime("previousKeyExpiresAt")
	if hash == "" || FormatTime(until.Time()) <= stamp {
		return nil
	}
	_, err := s.db().NewQuery(`INSERT OR REPLACE INTO {{` + schema.RetiredKeysTable + `}} ([[keyHash]], [[client]], [[expiresAt]])
		VALUES ({:hash}, {:client}, {:until})`).Bind(dbx.Params{"hash": hash, "client": rec.Id, "until": FormatTime(until.Time())}).Execute()
	if err != nil {
		return fmt.Errorf("retire the previous key of api client %s: %w", rec.Id, err)
	}
	return nil
}

func (s *base) newRecord(collection string) (*core.Record, error) {
	c, err := s.app.FindCachedCollectionByNameOrId(collection)
	if err != nil {
		return nil, fmt.Errorf("collection %s: %w", collection, err)
	}
	return core.NewRecord(c), nil
}

// OrgByName finds the first organization (by id) with the given name.
func (s *Accounts) OrgByName(name string) (enrichment.Org, error) {
	var id string
	err := s.db().Select("id").From("organizations").Where(dbx.HashExp{"name": name}).
		OrderBy("CAST(id AS INTEGER)").Limit(1).Row(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", enrichment.NotFound("organization")
	}
	if err != nil {
		return "", fmt.Errorf("find organization %q: %w", name, err)
	}
	return enrichment.Org(id), nil
}
