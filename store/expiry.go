package store

import (
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// expireBatch revisions are expired per transaction, so the writer is never
// held long.
const expireBatch = 500

// ExpireOverdue expires every pending revision that waited longer than its
// organization's proposalTtlDays at now (organizations with 0 keep theirs
// forever) and returns how many it expired.
func (s *Proposals) ExpireOverdue(now time.Time) (int, error) {
	var orgs []struct {
		ID  string `db:"id"`
		TTL int    `db:"proposalTtlDays"`
	}
	err := s.db().Select("id", "proposalTtlDays").From(schema.Organizations).
		Where(dbx.NewExp("[[proposalTtlDays]] > 0")).All(&orgs)
	if err != nil {
		return 0, fmt.Errorf("list organizations to expire proposals of: %w", err)
	}
	total := 0
	for _, o := range orgs {
		cutoff := FormatTime(now.Add(-time.Duration(o.TTL) * 24 * time.Hour))
		clients, err := s.Accounts().Clients(enrichment.Org(o.ID))
		if err != nil {
			return total, err
		}
		for _, c := range clients {
			n, err := s.expireOverdueOf(enrichment.Org(o.ID), c.ID, cutoff, now)
			total += n
			if err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

// expireOverdueOf expires the pending revisions that client submitted for
// org before cutoff, a batch at a time (on idx_revisions_client_created:
// organization, client, status, created).
func (s *Proposals) expireOverdueOf(org enrichment.Org, client int64, cutoff string, now time.Time) (int, error) {
	total := 0
	for {
		var ids []string
		err := s.db().Select("id").From(schema.Revisions).
			Where(dbx.HashExp{"organization": string(org), "apiClient": FormatID(client), "status": enrichment.StatusPending}).
			AndWhere(dbx.NewExp("[[created]] < {:cutoff}", dbx.Params{"cutoff": cutoff})).
			Limit(expireBatch).Column(&ids)
		if err != nil {
			return total, fmt.Errorf("find overdue proposals of client %d: %w", client, err)
		}
		if len(ids) == 0 {
			return total, nil
		}
		n, err := s.ExpireRevisions(org, ids, now)
		total += n
		if err != nil {
			return total, err
		}
	}
}

// ExpireRevisions expires those of org's revisions ids that are still
// pending, in one transaction with their webhook events, and returns how
// many it expired.
func (s *Proposals) ExpireRevisions(org enrichment.Org, ids []string, now time.Time) (int, error) {
	var expired []int64
	err := s.Transaction(func(tx *Store) error {
		stamp := FormatTime(now)
		params := dbx.Params{"org": string(org), "now": stamp, "ids": sqlparts.InValues(ids)}
		var rows []struct {
			ID      int64          `db:"id"`
			Client  string         `db:"apiClient"`
			Created types.DateTime `db:"created"`
			Model   []byte         `db:"model"`
		}
		err := tx.db().NewQuery(`UPDATE {{` + schema.Revisions + `}} SET [[status]] = 'expired', [[closedAt]] = {:now}, [[updated]] = {:now}
			WHERE [[organization]] = {:org} AND [[status]] = 'pending' AND ` + sqlparts.InList("id", "ids") + `
			RETURNING CAST([[id]] AS INTEGER) AS [[id]], [[apiClient]], [[created]], [[model]]`).Bind(params).All(&rows)
		if err != nil {
			return fmt.Errorf("expire revisions of organization %s: %w", org, err)
		}
		deltas := metricDeltas{}
		for _, r := range rows {
			expired = append(expired, r.ID)
			deltas.move(r.Client, storedModel(r.Model), r.Created.Time(), now, enrichment.StatusExpired, "", "")
		}
		if err := tx.Metrics().writeMetricDeltas(org, deltas); err != nil {
			return err
		}
		return tx.Outbox().queueRevisionEvents(org, enrichment.EventRevisionExpired, expired)
	})
	if err == nil {
		s.announceRevisions(nil, expired)
	}
	return len(expired), err
}
