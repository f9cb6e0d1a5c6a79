package store

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// AuditItem is a revision a trust policy accepted and drew for audit, as
// the reviewers' audit queue lists it.
type AuditItem struct {
	ID             int64    `json:"id"`
	Organization   int64    `json:"organization"`
	APIClient      int64    `json:"apiClient"`
	Policy         int64    `json:"policy"`
	SKU            string   `json:"sku"`
	ProductID      *int64   `json:"productId"` // nil once the product is gone
	Confidence     *int     `json:"confidence"`
	Status         string   `json:"status"`
	ApprovedFields []string `json:"approvedFields"`
	ReviewedAt     string   `json:"reviewedAt"`
	Audit          string   `json:"audit"`
}

type auditRow struct {
	ID             string         `db:"id"`
	Org            string         `db:"organization"`
	Client         string         `db:"apiClient"`
	Policy         string         `db:"policy"`
	SKU            string         `db:"sku"`
	Product        string         `db:"product"`
	Confidence     int            `db:"confidence"`
	Band           string         `db:"confidenceBand"`
	Status         string         `db:"status"`
	ApprovedFields types.JSONRaw  `db:"approvedFields"`
	ReviewedAt     types.DateTime `db:"reviewedAt"`
	Audit          string         `db:"audit"`
}

// Audits lists a page of the pending audits of orgs, oldest acceptance
// first, with their total.
func (s *Trust) Audits(orgs []enrichment.Org, page, pageSize int) (enrichment.Page[AuditItem], error) {
	in := make([]any, len(orgs))
	for i, o := range orgs {
		in[i] = string(o)
	}
	// note: the index's own condition, literally, lets SQLite use it
	// (idx_revisions_audit) rather than walk the organizations' revisions
	where := dbx.And(dbx.In("organization", in...), dbx.NewExp("[[audit]] != ''"), dbx.HashExp{"audit": enrichment.AuditPending})
	var total int
	if err := s.db().Select("COUNT(*)").From(schema.Revisions).Where(where).Row(&total); err != nil {
		return enrichment.Page[AuditItem]{}, fmt.Errorf("count pending audits: %w", err)
	}
	var rows []auditRow
	err := s.db().Select("id", "organization", "apiClient", "policy", "sku", "product", "confidence", "confidenceBand", "status",
		"approvedFields", "reviewedAt", "audit").From(schema.Revisions).Where(where).
		OrderBy("CAST(id AS INTEGER)").Limit(int64(pageSize)).Offset(int64(page) * int64(pageSize)).All(&rows)
	if err != nil {
		return enrichment.Page[AuditItem]{}, fmt.Errorf("list pending audits: %w", err)
	}
	items := make([]AuditItem, len(rows))
	for i, r := range rows {
		it := AuditItem{ID: sqlparts.StoredID(r.ID), Organization: sqlparts.StoredID(r.Org), APIClient: sqlparts.StoredID(r.Client), Policy: sqlparts.StoredID(r.Policy),
			SKU: r.SKU, Status: r.Status, ApprovedFields: decodeStrings(r.ApprovedFields), ReviewedAt: apiTime(r.ReviewedAt), Audit: r.Audit,
			Confidence: enrichment.StatedConfidence(r.Confidence, r.Band)}
		if r.Product != "" {
			id := sqlparts.StoredID(r.Product)
			it.ProductID = &id
		}
		items[i] = it
	}
	return enrichment.NewPage(items, page, pageSize, total), nil
}
