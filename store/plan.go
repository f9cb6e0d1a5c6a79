package store

import (
	"encoding/json/v2"
	"fmt"
	"slices"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/internal/sqlparts"
	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Group accepts, planned before anything is decided: which revisions a
// bulk accept (or an accept of revisions a reviewer selected) applies, and
// which it leaves because another pending proposal wins one of their
// fields. The store reads the revisions, enrichment.PlanAccept decides.

// PlanQuery names the revisions a group accept takes: those of Revisions
// (a reviewer's selection, in that order), or else the bulk accept's: the
// pending revisions of Client (0 for every client) with confidence
// enrichment.BulkAcceptMinConfidence or more, in submission order.
type PlanQuery struct {
	Client    int64
	Revisions []int64
}

// PlanItem is a revision as a plan names it.
type PlanItem struct {
	ID             string   `json:"id"`
	SKU            string   `json:"sku"`
	Status         string   `json:"status"`
	Confidence     *int     `json:"confidence"`     // null when submitted without
	ConfidenceBand string   `json:"confidenceBand"` // "" when submitted without confidence
	Created        string   `json:"created"`
	APIClient      string   `json:"apiClient"`
	ClientName     string   `json:"clientName"`
	Product        string   `json:"product"` // "" once the product was deleted
	Fields         []string `json:"fields"`  // the fields still pending, which accepting it applies
}

// PlanLeft is a revision a group accept leaves pending, with the fields
// other proposals win.
type PlanLeft struct {
	PlanItem
	Lost []PlanLost `json:"lost"`
}

// PlanLost is one field a left revision loses, and the revision that wins it.
type PlanLost struct {
	Field string   `json:"field"`
	To    PlanItem `json:"to"`
}

// Plan is what a group accept does: the revisions it accepts, whole, and
// those it leaves.
type Plan struct {
	Accept []PlanItem `json:"accept"`
	Left   []PlanLeft `json:"left"`
}

// planRow is a revision as a plan reads it.
type planRow struct {
	ID             string         `db:"id"`
	SKU            string         `db:"sku"`
	Status         string         `db:"status"`
	Confidence     int            `db:"confidence"`
	ConfidenceBand string         `db:"confidenceBand"`
	Created        types.DateTime `db:"created"`
	Proposed       types.JSONRaw  `db:"proposed"`
	Superseded     types.JSONRaw  `db:"supersededFields"`
	APIClient      string         `db:"apiClient"`
	ClientName     string         `db:"clientName"`
	Product        string         `db:"product"`
}

const planColumns = `r.[[id]], r.[[sku]], r.[[status]], r.[[confidence]], r.[[confidenceBand]], r.[[created]], r.[[proposed]],
	r.[[supersededFields]], r.[[apiClient]], COALESCE(c.[[name]], '') AS [[clientName]], r.[[product]]
	FROM {{` + schema.Revisions + `}} AS r LEFT JOIN {{` + schema.APIClients + `}} AS c ON c.[[id]] = r.[[apiClient]] `

// AcceptPlan plans the group accept q names among the revisions of orgs; a
// named revision that is not one of theirs is left out.
func (s *Review) AcceptPlan(orgs []enrichment.Org, q PlanQuery) (Plan, error) {
	candidates, err := s.planCandidates(orgs, q)
	if err != nil {
		return Plan{}, err
	}
	var products []string
	for _, r := range candidates {
		if r.Product != "" {
			products = append(products, r.Product)
		}
	}
	var others []planRow
	if len(products) > 0 {
		err = s.db().NewQuery(`SELECT ` + planColumns + `WHERE r.` + sqlparts.InList("product", "products") +
			` AND r.[[status]] = 'pending' AND r.` + sqlparts.InList("organization", "orgs")).
			Bind(dbx.Params{"products": sqlparts.InValues(unique(products)), "orgs": sqlparts.InValues(orgs)}).All(&others)
		if err != nil {
			return Plan{}, fmt.Errorf("read the pending revisions of the plan's products: %w", err)
		}
	}
	rows := map[int64]planRow{} // note: a candidate stands as read with the candidates
	contenders := func(list []planRow) []enrichment.Contender {
		out := make([]enrichment.Contender, len(list))
		for i, r := range list {
			out[i] = r.contender()
			rows[out[i].ID] = r
		}
		return out
	}
	rivals := contenders(others)
	accept, left := enrichment.PlanAccept(contenders(candidates), rivals)
	item := func(c enrichment.Contender) PlanItem { return rows[c.ID].item(c.Fields) }
	plan := Plan{Accept: make([]PlanItem, 0, len(accept)), Left: make([]PlanLeft, 0, len(left))}
	for _, c := range accept {
		plan.Accept = append(plan.Accept, item(c))
	}
	for _, l := range left {
		out := PlanLeft{PlanItem: item(l.Revision)}
		for _, lost := range l.Lost {
			out.Lost = append(out.Lost, PlanLost{Field: lost.Field, To: item(lost.To)})
		}
		plan.Left = append(plan.Left, out)
	}
	return plan, nil
}

// planCandidates reads the revisions q names, in q's order.
func (s *Review) planCandidates(orgs []enrichment.Org, q PlanQuery) ([]planRow, error) {
	var rows []planRow
	if q.Revisions != nil {
		if len(q.Revisions) == 0 {
			return nil, nil
		}
		err := s.db().NewQuery(`SELECT ` + planColumns + `WHERE r.` + sqlparts.InList("id", "ids") + ` AND r.` + sqlparts.InList("organization", "orgs")).
			Bind(dbx.Params{"ids": sqlparts.InValues(sqlparts.FormatIDs(q.Revisions)), "orgs": sqlparts.InValues(orgs)}).All(&rows)
		if err != nil {
			return nil, fmt.Errorf("read the revisions of the plan: %w", err)
		}
		slices.SortFunc(rows, func(a, b planRow) int {
			return slices.Index(q.Revisions, sqlparts.StoredID(a.ID)) - slices.Index(q.Revisions, sqlparts.StoredID(b.ID))
		})
		return rows, nil
	}
	where := `WHERE r.` + sqlparts.InList("organization", "orgs") + ` AND r.[[status]] = 'pending' AND r.[[confidenceBand]] = {:band}`
	params := dbx.Params{"orgs": sqlparts.InValues(orgs), "band": enrichment.ConfidenceBand(enrichment.BulkAcceptMinConfidence)}
	if q.Client != 0 {
		where += ` AND r.[[apiClient]] = {:client}`
		params["client"] = FormatID(q.Client)
	}
	err := s.db().NewQuery(`SELECT ` + planColumns + where + ` ORDER BY r.[[created]], r.[[_rowid_]]`).Bind(params).All(&rows)
	if err != nil {
		return nil, fmt.Errorf("read the bulk accept's revisions: %w", err)
	}
	return rows, nil
}

// contender is the row as enrichment.PlanAccept weighs it.
func (r planRow) contender() enrichment.Contender {
	var proposed enrichment.Fields
	if len(r.Proposed) > 0 && json.Unmarshal(r.Proposed, &proposed) != nil {
		proposed = enrichment.Fields{} // note: a proposal that cannot be read competes for nothing
	}
	return enrichment.Contender{ID: sqlparts.StoredID(r.ID), Product: sqlparts.StoredID(r.Product), Confidence: r.Confidence,
		Created: r.Created.Time(), Fields: enrichment.PendingFields(proposed, decodeStrings(r.Superseded))}
}

// item is the row as a plan names it, with its pending fields.
func (r planRow) item(fields []string) PlanItem {
	if fields == nil {
		fields = []string{}
	}
	return PlanItem{ID: r.ID, SKU: r.SKU, Status: r.Status, Confidence: enrichment.StatedConfidence(r.Confidence, r.ConfidenceBand), ConfidenceBand: r.ConfidenceBand,
		Created: apiTime(r.Created), APIClient: r.APIClient, ClientName: r.ClientName, Product: r.Product, Fields: fields}
}
