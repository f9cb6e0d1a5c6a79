package enrichment

import (
	"slices"
	"time"
)

// Supersession as a rule of values: within one API client's proposals for
// one product, a newer proposal of a field replaces the older pending one's;
// for attributes, a newer proposal of an attribute name replaces that
// attribute only, and the field once every proposed attribute is replaced.
// The older revision's field becomes superseded; once all of its proposed
// fields are, the revision itself is superseded by the newer one. Different
// clients' proposals never supersede each other: the store only ever hands
// Supersede one client's revisions.

// ProposalState is one client's revision while a batch is stored: its
// proposed fields, those superseded so far, and its status.
type ProposalState struct {
	ID         int64
	Created    time.Time
	Product    string
	Fields     []string // proposed, in API order
	Superseded []string // superseded so far, in API order
	Attributes []string // names of the proposed attributes, in the order proposed
	// names of the attributes superseded so far; "attributes" in
	// Superseded stands for all of them
	SupersededAttributes []string
	Status               string // pending or superseded
	SupersededBy         int64
	Changed              bool // an older revision that Supersede changed, to write back
}

// Supersede applies each created revision, in order, to the pending ones
// before it for the same product: older (the stored ones, in id order) and
// the earlier created ones. It marks what changed in place.
func Supersede(older, created []*ProposalState) {
	pending := map[string][]*ProposalState{}
	for _, o := range older {
		pending[o.Product] = append(pending[o.Product], o)
	}
	for _, n := range created {
		var still []*ProposalState
		for _, prev := range pending[n.Product] {
			for _, f := range n.Fields {
				if f != "attributes" && slices.Contains(prev.Fields, f) && !slices.Contains(prev.Superseded, f) {
					prev.Superseded = append(prev.Superseded, f)
					prev.Changed = true
				}
			}
			prev.supersedeAttributes(n.Attributes)
			if len(prev.Superseded) == len(prev.Fields) {
				prev.Status, prev.SupersededBy = StatusSuperseded, n.ID
				continue
			}
			still = append(still, prev)
		}
		pending[n.Product] = append(still, n)
	}
	for _, p := range slices.Concat(older, created) {
		p.Superseded = InAPIOrder(p.Superseded)
	}
}

// supersedeAttributes supersedes the attributes named of p's, and its
// attributes field once none is left.
func (p *ProposalState) supersedeAttributes(names []string) {
	if slices.Contains(p.Superseded, "attributes") {
		return
	}
	left := 0
	for _, a := range p.Attributes {
		switch {
		case slices.Contains(p.SupersededAttributes, a):
		case slices.Contains(names, a):
			p.SupersededAttributes = append(p.SupersededAttributes, a)
			p.Changed = true
		default:
			left++
		}
	}
	if left == 0 && slices.Contains(p.Fields, "attributes") && len(p.SupersededAttributes) > 0 {
		p.Superseded = append(p.Superseded, "attributes")
	}
}

// InAPIOrder sorts field names in place as EnrichableFields lists them, and
// returns them.
func InAPIOrder(fields []string) []string {
	slices.SortFunc(fields, func(a, b string) int {
		return slices.Index(EnrichableFields, a) - slices.Index(EnrichableFields, b)
	})
	return fields
}
