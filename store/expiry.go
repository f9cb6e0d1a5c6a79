package store

import (
	"fmt"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// expireBatch revisions are expired per transaction, so the writer is never
// held long.
const expireBatch = 500

// ExpireOverdue expires every pending revision that waited longer than its
// organization's proposalTtlDays at now (organizations with 0 keep theirs
// forever) and returns how many it expired.
func (s *Store) ExpireOverdue(now time.Time) (int, error) {
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
		for {
			var ids []string
			// note: the literal 'pending' lets SQLite use the partial index
			// of pending revisions by age
			err := s.db().NewQuery(`SELECT [[id]] FROM {{revisions}}
				WHERE [[organization]] = {:org} AND [[status]] = 'pending' AND [[created]] < {:cutoff}
				LIMIT {:limit}`).
				Bind(dbx.Params{"org": o.ID, "cutoff": cutoff, "limit": expireBatch}).Column(&ids)
			if err != nil {
				return total, fmt.Errorf("find overdue proposals of organization %s: %w", o.ID, err)
			}
			if len(ids) == 0 {
				break
			}
			n, err := s.ExpireRevisions(enrichment.Org(o.ID), ids, now)
			if err != nil {
				return total, err
			}
			total += n
		}
	}
	return total, nil
}

// ExpireRevisions expires those of org's revisions ids that are still
// pending, in one transaction, and returns how many it expired.
func (s *Store) ExpireRevisions(org enrichment.Org, ids []string, now time.Time) (int, error) {
	expired := 0
	err := s.Transaction(func(tx *Store) error {
		res, err := tx.db().Update(schema.Revisions, dbx.Params{
			"status": enrichment.StatusExpired, "closedAt": FormatTime(now), "updated": FormatTime(now),
		}, dbx.And(
			dbx.HashExp{"organization": string(org), "status": enrichment.StatusPending},
			dbx.In("id", anys(ids)...),
		)).Execute()
		if err != nil {
			return fmt.Errorf("expire revisions of organization %s: %w", org, err)
		}
		n, err := res.RowsAffected()
		expired = int(n)
		return err
	})
	return expired, err
}
