package enrichment

// A revision record keeps what a proposal asked for and what the product
// looked like then (JSON fields "proposed" and "base" of the revisions
// collection). Both hold only the fields that were proposed; base.Attributes
// and base.Files hold the product's whole lists at submission time.
//
//	proposed: {"name": "…", "attributes": [{"attribute": "Color", "detail": "Red", "optionId": 12}], "files": ["…"]}
//	base:     {"name": "…", "attributes": [ …the product's attributes… ],                            "files": ["…"]}
//
// A revision submitted without confidence has confidence 0 and an empty
// confidenceBand; otherwise confidenceBand is ConfidenceBand(confidence).

// Fields are enrichable product fields as a revision stores them; nil means
// not proposed.
type Fields struct {
	Name        *string            `json:"name,omitzero"`
	Slug        *string            `json:"slug,omitzero"`
	Description *string            `json:"description,omitzero"`
	Attributes  *[]StoredAttribute `json:"attributes,omitzero"`
	Files       *[]string          `json:"files,omitzero"`
}

// Names lists the fields that are set, in API order.
func (f Fields) Names() []string {
	var out []string
	for _, name := range EnrichableFields {
		if f.Has(name) {
			out = append(out, name)
		}
	}
	return out
}

// Has reports whether the named field is set.
func (f Fields) Has(name string) bool {
	switch name {
	case "name":
		return f.Name != nil
	case "slug":
		return f.Slug != nil
	case "description":
		return f.Description != nil
	case "attributes":
		return f.Attributes != nil
	case "files":
		return f.Files != nil
	}
	return false
}

// Submission result statuses, per item.
const (
	ResultCreated        = "CREATED"
	ResultUnmatched      = "UNMATCHED"
	ResultRejectedFields = "REJECTED_FIELDS"
)

// SubmissionResult is the outcome of one submitted item, in request order.
type SubmissionResult struct {
	SKU           string   `json:"sku"`
	ProductID     *int64   `json:"productId"`
	RevisionID    *int64   `json:"revisionId"`
	Status        string   `json:"status"`
	IgnoredFields []string `json:"ignoredFields"`
	Issues        []Issue  `json:"issues"` // what the checks found; [] when nothing
}

// Proposal is one validated submission item: what it proposes, which of
// its fields were dropped, and what the checks found.
type Proposal struct {
	SKU        string
	Confidence *int // nil: submitted without confidence
	Fields     Fields
	Ignored    []string
	// AttributePlaces holds, for each of Fields.Attributes, its index in
	// the submitted list (nil: the same index).
	AttributePlaces []int
	Model           *Model   // nil: none
	Sources         []Source // the valid ones
	// SourcePlaces holds, for each of Sources, its index in the submitted
	// list (nil: the same index).
	SourcePlaces []int
	Issues       []Issue
}

// attributePlace is the submitted index of the i-th proposed attribute.
func (p *Proposal) attributePlace(i int) int {
	if p.AttributePlaces == nil {
		return i
	}
	return p.AttributePlaces[i]
}

// sourcePlace is the submitted index of the i-th kept source.
func (p *Proposal) sourcePlace(i int) int {
	if p.SourcePlaces == nil {
		return i
	}
	return p.SourcePlaces[i]
}
