package store

import (
	"database/sql"
	"encoding/json/v2"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// A rollback (docs/review.md) reverts accepted revisions: enrichment.Revert
// says what it does to each product, these functions select the revisions,
// newest decision first, and write what it did, a chunk of revisions per
// transaction: the products, the revisions (status reverted), the metric
// counters, the change feed (the products' trigger), the organization's
// generation and the webhook outbox commit together, so a crash leaves
// every revision either reverted with its product or untouched.

// RollbackSelection chooses the revisions of an organization a rollback
// reverts: those of Client accepted within Window (Since required), of the
// Model filter's model when it is set; or, when Revision is set, that one
// revision alone. Only accepted revisions are selected, so rolling back
// again selects nothing new.
type RollbackSelection struct {
	Client   int64
	Window   Window
	Model    ModelFilter
	Revision int64
	DryRun   bool // count what would happen; store nothing
}

// RollbackResult is a rollback's answer.
type RollbackResult struct {
	Revisions int `json:"revisions"` // revisions reverted (or that would be)
	Restored  int `json:"restored"`  // fields and attributes restored to their value before
	Conflicts int `json:"conflicts"` // fields and attributes left alone: the product holds another value
	Products  int `json:"products"`  // products with a value restored
	// Reverted are the ids of the revisions reverted; none in a dry run
	Reverted []int64 `json:"-"`
}

// rollbackRow is an accepted revision as a rollback reads it.
type rollbackRow struct {
	ID              string         `db:"id"`
	Client          string         `db:"apiClient"`
	Product         string         `db:"product"`
	Proposed        types.JSONRaw  `db:"proposed"`
	Base            types.JSONRaw  `db:"base"`
	Approved        types.JSONRaw  `db:"approvedFields"`
	ApprovedAttrs   types.JSONRaw  `db:"approvedAttributes"`
	Superseded      types.JSONRaw  `db:"supersededFields"`
	SupersededAttrs types.JSONRaw  `db:"supersededAttributes"`
	Corrections     types.JSONRaw  `db:"corrections"`
	Model           types.JSONRaw  `db:"model"`
	Band            string         `db:"confidenceBand"`
	Reason          string         `db:"reason"`
	Mask            int            `db:"decisionMask"`
	ReviewedAt      types.DateTime `db:"reviewedAt"`
}

var rollbackColumns = []string{"id", "apiClient", "product", "proposed", "base", "approvedFields", "approvedAttributes",
	"supersededFields", "supersededAttributes", "corrections", "model", "confidenceBand", "reason", "decisionMask", "reviewedAt"}

// accepted is the row as the rule reads it.
func (r rollbackRow) accepted() (enrichment.AcceptedRevision, error) {
	rev := enrichment.AcceptedRevision{Approved: decodeStrings(r.Approved), ApprovedAttributes: decodeStrings(r.ApprovedAttrs),
		Superseded: decodeStrings(r.Superseded), SupersededAttributes: decodeStrings(r.SupersededAttrs)}
	for _, part := range []struct {
		raw types.JSONRaw
		to  *enrichment.Fields
	}{{r.Proposed, &rev.Proposed}, {r.Base, &rev.Base}} {
		if len(part.raw) == 0 || string(part.raw) == "null" {
			continue
		}
		if err := json.Unmarshal(part.raw, part.to); err != nil {
			return rev, fmt.Errorf("decode revision %s: %w", r.ID, err)
		}
	}
	var err error
	rev.Corrections, err = enrichment.ParseObject("corrections", r.Corrections)
	return rev, err
}

// Rollback reverts org's revisions that sel selects, as who (recorded as
// revertedBy), at now, and answers what it did. The selection is read once,
// newest decision first; each chunk of enrichment.MaxRollbackChunk of it
// is read again in its transaction (a revision no longer accepted there is
// left out). Outside a transaction each chunk commits on its own and
// realtime subscribers hear of it; on a store bound to a transaction (a
// hook deciding an audit, say) every chunk is written in that transaction,
// and the caller announces the revisions in the result after its commit.
func (s *Review) Rollback(org enrichment.Org, sel RollbackSelection, who string, now time.Time) (RollbackResult, error) {
	var res RollbackResult
	restored := map[string]bool{}                  // products with a value restored
	memo := map[string]*enrichment.ProductValues{} // a dry run's products as the rollback left them
	// note: what is decided after the rollback began is not selected
	if sel.Window.Until.IsZero() || sel.Window.Until.After(now) {
		sel.Window.Until = now.Add(time.Millisecond)
	}
	selected, err := s.rollbackSelect(org, sel)
	if err != nil {
		return res, fmt.Errorf("roll back revisions of organization %s: %w", org, err)
	}
	for ids := range slices.Chunk(selected, enrichment.MaxRollbackChunk) {
		var chunk []int64
		work := func(tx *Review) error {
			rows, err := tx.rollbackRows(org, ids)
			if err != nil || len(rows) == 0 {
				return err
			}
			if !sel.DryRun {
				clear(memo) // products are read again in each chunk's transaction
			}
			chunk, err = tx.revertChunk(org, rows, memo, restored, &res, sel.DryRun, who, now)
			return err
		}
		if sel.DryRun || s.app.IsTransactional() {
			err = work(s)
		} else {
			err = s.Transaction(func(tx *Store) error { return work(tx.Review()) })
		}
		if err != nil {
			return res, fmt.Errorf("roll back revisions of organization %s: %w", org, err)
		}
		res.Reverted = append(res.Reverted, chunk...)
		s.announceRevisions(nil, chunk)
	}
	res.Products = len(restored)
	return res, nil
}

// rollbackSelect lists the ids of the revisions sel selects, newest
// decision first, from the index of decided revisions by client and
// reviewedAt.
func (s *Review) rollbackSelect(org enrichment.Org, sel RollbackSelection) ([]string, error) {
	params := dbx.Params{"org": string(org)}
	var q string
	if sel.Revision != 0 {
		params["id"] = FormatID(sel.Revision)
		q = "SELECT [[id]] FROM {{" + schema.Revisions + "}} WHERE [[id]] = {:id} AND [[organization]] = {:org} AND [[status]] = 'accepted'"
	} else {
		params["client"], params["since"], params["until"] = FormatID(sel.Client), FormatTime(sel.Window.Since), FormatTime(sel.Window.Until)
		// note: the index's own condition, literally, lets SQLite use it
		q = "SELECT [[id]] FROM {{" + schema.Revisions + "}} INDEXED BY " + schema.IdxRevisionsDecidedEdges +
			" WHERE [[organization]] = {:org} AND [[apiClient]] = {:client} AND " + sel.Model.revisionSQL(params) +
			"[[status]] IN ('accepted', 'rejected', 'reverted') AND +[[status]] = 'accepted' AND [[reviewedAt]] > {:since} AND [[reviewedAt]] < {:until}" +
			" ORDER BY [[reviewedAt]] DESC, CAST([[id]] AS INTEGER) DESC"
	}
	var ids []string
	if err := s.db().NewQuery(q).Bind(params).Column(&ids); err != nil {
		return nil, fmt.Errorf("select accepted revisions: %w", err)
	}
	return ids, nil
}

// rollbackRows reads those of org's revisions ids that are still accepted,
// in the order of ids.
func (s *Review) rollbackRows(org enrichment.Org, ids []string) ([]rollbackRow, error) {
	var rows []rollbackRow
	err := s.db().Select(rollbackColumns...).From(schema.Revisions).
		Where(dbx.HashExp{"organization": string(org), "status": enrichment.StatusAccepted}).AndWhere(sqlparts.In("id", ids)).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read accepted revisions: %w", err)
	}
	place := make(map[string]int, len(ids))
	for i, id := range ids {
		place[id] = i
	}
	slices.SortFunc(rows, func(a, b rollbackRow) int { return place[a.ID] - place[b.ID] })
	return rows, nil
}

// RevisionOrganization is the organization of a revision;
// enrichment.ErrNotFound when there is no such revision.
func (s *Review) RevisionOrganization(id int64) (enrichment.Org, error) {
	return s.organizationOf(schema.Revisions, "revision", id)
}

// ClientOrganization is the organization of an API client;
// enrichment.ErrNotFound when there is no such client.
func (s *Accounts) ClientOrganization(id int64) (enrichment.Org, error) {
	return s.organizationOf(schema.APIClients, "API client", id)
}

func (s *base) organizationOf(collection, what string, id int64) (enrichment.Org, error) {
	var org string
	err := s.db().Select("organization").From(collection).Where(dbx.HashExp{"id": FormatID(id)}).Row(&org)
	if errors.Is(err, sql.ErrNoRows) {
		return "", enrichment.NotFound(what)
	}
	if err != nil {
		return "", fmt.Errorf("find the organization of %s %d: %w", what, id, err)
	}
	return enrichment.Org(org), nil
}
