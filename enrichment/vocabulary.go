package enrichment

// The reviewers' page draws what the server tells it: the values of the
// API with their names for people, and the limits (GET
// /api/enrichment/review/vocabulary). The names live here, beside the
// values they name, so that the page copies none of them.

// Term is one value of the API with its name for people.
type Term struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// Vocabulary is every value and limit the reviewers' page works with.
type Vocabulary struct {
	Bands    []Term `json:"bands"`    // the confidence bands, highest first, then BandNone
	Fields   []Term `json:"fields"`   // the enrichable fields, in API order
	Reasons  []Term `json:"reasons"`  // the reasons of a decision, in API order
	Outcomes []Term `json:"outcomes"` // what became of a proposed field
	Sorts    []Term `json:"sorts"`    // the queue's orders, the default first
	Limits   Limits `json:"limits"`
}

// Limits are the numbers the page keeps to.
type Limits struct {
	CommentLength     int `json:"commentLength"`     // MaxCommentLength
	QueuePageSize     int `json:"queuePageSize"`     // revisions per page of the reviewers' queue
	BulkMinConfidence int `json:"bulkMinConfidence"` // BulkAcceptMinConfidence
	PlanRevisions     int `json:"planRevisions"`     // MaxPlanRevisions
}

// BandNone names, beside the confidence bands, the revisions submitted
// without confidence.
const BandNone = "none"

// QueuePageSize is how many revisions a page of the reviewers' queue shows.
const QueuePageSize = 50

// labels name values for people; a value without a label is shown as is.
var labels = map[string]string{
	// bands
	"80-100": "80–100", "50-79": "50–79", "0-49": "0–49", BandNone: "none",
	// fields
	"name": "Name", "slug": "Slug", "description": "Description", "attributes": "Attributes", "files": "Files",
	// reasons
	"inaccurate": "Inaccurate", "low_quality": "Low quality", "off_brand": "Off brand", "incomplete": "Incomplete",
	"duplicate": "Duplicate", "other": "Other",
	// outcomes
	OutcomePending: "pending", OutcomeApplied: "applied", OutcomeCorrected: "corrected", OutcomePartlyApplied: "partly applied", OutcomeNotApplied: "not applied", OutcomeSuperseded: "superseded",
	OutcomeExpired: "expired", OutcomeOverwritten: "overwritten", OutcomeReverted: "reverted",
	// the queue's orders
	"confidence-desc": "Confidence ↓", "confidence-asc": "Confidence ↑", "age-desc": "Oldest first", "age-asc": "Newest first",
}

// OutcomeNames lists every outcome of a proposed field, in the order they are documented.
var OutcomeNames = []string{OutcomePending, OutcomeApplied, OutcomeCorrected, OutcomePartlyApplied, OutcomeNotApplied,
	OutcomeSuperseded, OutcomeExpired, OutcomeOverwritten, OutcomeReverted}

// Label names a value for people; one without a name of its own is its own name.
func Label(value string) string {
	if l, ok := labels[value]; ok {
		return l
	}
	return value
}

// terms names each of values.
func terms(values []string) []Term {
	out := make([]Term, len(values))
	for i, v := range values {
		out[i] = Term{Value: v, Label: Label(v)}
	}
	return out
}

// NewVocabulary is the page's vocabulary, with sorts (the queue's orders,
// which the store defines) in their order.
func NewVocabulary(sorts []string) Vocabulary {
	bands := []string{BandNone}
	for _, b := range ConfidenceBands {
		bands = append([]string{b}, bands...) // note: highest first
	}
	return Vocabulary{
		Bands:    terms(bands),
		Fields:   terms(EnrichableFields),
		Reasons:  terms(Reasons),
		Outcomes: terms(OutcomeNames),
		Sorts:    terms(sorts),
		Limits: Limits{CommentLength: MaxCommentLength, QueuePageSize: QueuePageSize,
			BulkMinConfidence: BulkAcceptMinConfidence, PlanRevisions: MaxPlanRevisions},
	}
}
