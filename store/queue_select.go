package store

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// SelectedRevision is a pending revision a queue's filters select, with
// its organization.
type SelectedRevision struct {
	ID  string `db:"id"`
	Org string `db:"organization"`
}

// QueueSelection lists the pending revisions of orgs that q's filters
// select (its band, SKU, client, template and triage; those others' claims
// hold left out unless q.WithClaimed), in submission order, at most
// limit+1: the caller sees whether more than limit match. A group decision
// by filter decides them (routes/review_group.go).
func (s *Review) QueueSelection(orgs []enrichment.Org, q QueueQuery, limit int) ([]SelectedRevision, error) {
	if !q.WithClaimed {
		var err error
		if q.heldRows, err = s.Review().othersClaimedRows(orgs, q.Viewer, q.Now); err != nil {
			return nil, err
		}
	}
	where, params := queueWhere(orgs, q, q.Band)
	params["limit"] = limit + 1
	var out []SelectedRevision
	err := s.db().NewQuery("SELECT [[id]], [[organization]]" + fromQueue + where + " ORDER BY [[_rowid_]] LIMIT {:limit}").
		Bind(params).All(&out)
	if err != nil {
		return nil, fmt.Errorf("select the queue's revisions by its filters: %w", err)
	}
	return out, nil
}
