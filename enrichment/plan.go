package enrichment

import (
	"cmp"
	"slices"
	"time"
)

// BulkAcceptMinConfidence is the least confidence of a revision that the
// bulk accept takes: the revisions of the top band.
const BulkAcceptMinConfidence = 80

// MaxPlanRevisions bounds the revisions one plan weighs and one group
// decision decides.
const MaxPlanRevisions = 5000

// MaxFilterRevisions bounds the revisions a group decision by the queue's
// filters decides in one request.
const MaxFilterRevisions = 10000

// Contender is a revision as a group accept weighs it.
type Contender struct {
	ID         int64
	Product    int64 // 0 once the product was deleted: it competes with nothing
	Confidence int   // 0 when submitted without
	Created    time.Time
	Fields     []string // the proposed fields no newer proposal superseded, in API order
}

// Lost is a field a revision proposes that another revision wins.
type Lost struct {
	Field string
	To    Contender
}

// LeftOut is a revision a group accept leaves pending, with the fields it loses.
type LeftOut struct {
	Revision Contender
	Lost     []Lost
}

// aheadOf orders proposals for one field: the highest confidence first,
// then the older, then the lower id.
func aheadOf(a, b Contender) int {
	return cmp.Or(cmp.Compare(b.Confidence, a.Confidence), a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID))
}

// fieldKey names one field of one product.
type fieldKey struct {
	product int64
	field   string
}

// PlanAccept decides which of candidates a group accept applies, so that no
// two proposals are ever applied to one field: a candidate is accepted when
// it wins every field it proposes among all of them and others (the other
// pending revisions of their products, of every client); else it is left,
// with the fields it loses and to whom. A candidate whose product is gone
// competes with nothing: it is accepted here, and the decision refuses it.
// Both lists keep the candidates' order.
func PlanAccept(candidates, others []Contender) (accept []Contender, left []LeftOut) {
	byID := make(map[int64]Contender, len(others)+len(candidates))
	var order []int64
	for _, r := range slices.Concat(others, candidates) {
		if _, seen := byID[r.ID]; !seen {
			order = append(order, r.ID)
		}
		byID[r.ID] = r // note: a candidate stands for itself as read with the candidates
	}
	best := map[fieldKey]Contender{}
	for _, id := range order {
		r := byID[id]
		if r.Product == 0 {
			continue
		}
		for _, f := range r.Fields {
			k := fieldKey{r.Product, f}
			if held, ok := best[k]; !ok || aheadOf(r, held) < 0 {
				best[k] = r
			}
		}
	}
	for _, r := range candidates {
		var lost []Lost
		for _, f := range r.Fields {
			if to, ok := best[fieldKey{r.Product, f}]; r.Product != 0 && ok && to.ID != r.ID {
				lost = append(lost, Lost{Field: f, To: to})
			}
		}
		if len(lost) > 0 {
			left = append(left, LeftOut{Revision: r, Lost: lost})
		} else {
			accept = append(accept, r)
		}
	}
	return accept, left
}
