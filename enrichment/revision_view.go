package enrichment

import "encoding/json/jsontext"

// Outcomes of one proposed field, as GET /revisions reports them.
const (
	OutcomePending     = "pending"     // the revision awaits review
	OutcomeApplied     = "applied"     // accepted, and the field was applied
	OutcomeNotApplied  = "not_applied" // rejected, or left out of a partial approval
	OutcomeSuperseded  = "superseded"  // a newer proposal of the same client replaced it
	OutcomeExpired     = "expired"     // the revision waited too long
	OutcomeOverwritten = "overwritten" // applied, then replaced by a later catalog import
)

// RevisionItem is a revision as the API client that submitted it sees it.
type RevisionItem struct {
	ID          int64   `json:"id"`
	SKU         string  `json:"sku"`
	ProductID   *int64  `json:"productId"`  // nil once the product is gone
	Confidence  *int    `json:"confidence"` // nil when submitted without
	Status      string  `json:"status"`
	SubmittedAt string  `json:"submittedAt"`
	ReviewedAt  *string `json:"reviewedAt"` // nil unless a reviewer decided
	// who decided: DecidedByReviewer or DecidedByPolicy; nil unless decided
	DecidedBy    *string       `json:"decidedBy"`
	ClosedAt     *string       `json:"closedAt"`     // nil while pending
	SupersededBy *int64        `json:"supersededBy"` // the newer revision, when superseded
	Reason       *string       `json:"reason"`       // given with a decision, else nil
	Comment      *string       `json:"comment"`      // given with a decision, else nil
	Fields       FieldOutcomes `json:"fields"`
	Issues       []Issue       `json:"issues"`  // what the checks found at submission
	Model        *Model        `json:"model"`   // nil when the submission named none
	Sources      []Source      `json:"sources"` // the vendor's evidence
	// what became of each proposed attribute, by name (Outcomes)
	Attributes FieldOutcomes `json:"attributes"`
	// the reviewer's corrections as applied, null when none
	Corrections jsontext.Value `json:"corrections"`
	// the reviewer's reason per field or attribute not applied, null when none
	FieldReasons jsontext.Value `json:"fieldReasons"`
}

// FieldOutcome is what became of one proposed field or attribute.
type FieldOutcome struct {
	Field   string // an enrichable field name, or an attribute's name
	Outcome string // one of the Outcome* values
}

// FieldOutcomes encode as one JSON object keyed by field, in enrichable
// order (a Go map would lose the order).
type FieldOutcomes []FieldOutcome

// MarshalJSONTo writes the outcomes as {"name":"applied",...}.
func (f FieldOutcomes) MarshalJSONTo(enc *jsontext.Encoder) error {
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	for _, o := range f {
		if err := enc.WriteToken(jsontext.String(o.Field)); err != nil {
			return err
		}
		if err := enc.WriteToken(jsontext.String(o.Outcome)); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}
