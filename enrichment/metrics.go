package enrichment

// AcceptanceMetrics is GET /acceptance-rate's body: how one API client's
// proposals fared within a window.
type AcceptanceMetrics struct {
	TotalSubmitted   int             `json:"totalSubmitted"` // reviewed + pending + superseded + expired
	Reviewed         int             `json:"reviewed"`       // accepted + rejected
	Accepted         int             `json:"accepted"`
	Rejected         int             `json:"rejected"` // reverted ones included
	Pending          int             `json:"pending"`
	AcceptanceRate   float64         `json:"acceptanceRate"`
	ByConfidenceBand []BandMetrics   `json:"byConfidenceBand"`
	Superseded       int             `json:"superseded"`
	Expired          int             `json:"expired"`
	ByReason         []ReasonMetrics `json:"byReason"`
	Corrected        int             `json:"corrected"` // reviewed revisions with a correction; also accepted
	Reverted         int             `json:"reverted"`  // accepted, then rolled back; also rejected
	ByField          []FieldMetrics  `json:"byField"`   // one per enrichable field, in API order
	// accepted revisions a trust policy decided; also accepted and reviewed
	AutoAccepted int `json:"autoAccepted"`
	// gaps of products that accepted revisions filled (rolled back ones
	// not counted)
	SlotsFilled int `json:"slotsFilled"`
	// ByModel is in GET /acceptance-rate only (nil elsewhere): each model
	// version with a reviewed proposal in the window, by name then version.
	ByModel []ModelMetrics `json:"byModel,omitzero"`
}

// ModelMetrics are the reviewed proposals of one model version.
type ModelMetrics struct {
	Name           string  `json:"name"`
	Version        string  `json:"version"`
	Reviewed       int     `json:"reviewed"`
	Accepted       int     `json:"accepted"`
	AcceptanceRate float64 `json:"acceptanceRate"`
}

// ReasonMetrics counts the decided revisions that carry one reason.
type ReasonMetrics struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// BandMetrics are the decided proposals of one confidence band.
type BandMetrics struct {
	Band           string  `json:"band"`
	Reviewed       int     `json:"reviewed"`
	Accepted       int     `json:"accepted"`
	AcceptanceRate float64 `json:"acceptanceRate"`
}

// NewAcceptanceMetrics is the metrics of nothing: zeros, every band and
// every reason listed.
func NewAcceptanceMetrics() AcceptanceMetrics {
	m := AcceptanceMetrics{ByConfidenceBand: make([]BandMetrics, len(ConfidenceBands)), ByReason: make([]ReasonMetrics, len(Reasons))}
	for i, band := range ConfidenceBands {
		m.ByConfidenceBand[i].Band = band
	}
	for i, reason := range Reasons {
		m.ByReason[i].Reason = reason
	}
	m.ByField = make([]FieldMetrics, len(EnrichableFields))
	for i, field := range EnrichableFields {
		m.ByField[i].Field = field
	}
	return m
}

// Add adds the counts of o; the derived figures are left to Finish.
func (m *AcceptanceMetrics) Add(o AcceptanceMetrics) {
	m.Accepted += o.Accepted
	m.Rejected += o.Rejected
	m.Pending += o.Pending
	m.Superseded += o.Superseded
	m.Expired += o.Expired
	for i := range m.ByConfidenceBand {
		m.ByConfidenceBand[i].Reviewed += o.ByConfidenceBand[i].Reviewed
		m.ByConfidenceBand[i].Accepted += o.ByConfidenceBand[i].Accepted
	}
	for i := range m.ByReason {
		m.ByReason[i].Count += o.ByReason[i].Count
	}
	m.Corrected += o.Corrected
	m.AutoAccepted += o.AutoAccepted
	m.SlotsFilled += o.SlotsFilled
	m.Reverted += o.Reverted
	for i := range m.ByField {
		m.ByField[i].Proposed += o.ByField[i].Proposed
		m.ByField[i].Applied += o.ByField[i].Applied
		m.ByField[i].Corrected += o.ByField[i].Corrected
	}
}

// Finish computes the totals and rates from the counts.
func (m *AcceptanceMetrics) Finish() {
	m.Reviewed = m.Accepted + m.Rejected
	m.TotalSubmitted = m.Reviewed + m.Pending + m.Superseded + m.Expired
	m.AcceptanceRate = Rate(m.Accepted, m.Reviewed)
	for i := range m.ByConfidenceBand {
		b := &m.ByConfidenceBand[i]
		b.AcceptanceRate = Rate(b.Accepted, b.Reviewed)
	}
}

// Rate is accepted/reviewed rounded half up to four decimals, 0 when nothing
// was reviewed. note: rounded in integers, so 1/3 is 0.3333 and 2/3 0.6667
// exactly, with no float error at the half.
func Rate(accepted, reviewed int) float64 {
	if reviewed == 0 {
		return 0
	}
	tenThousandths := (int64(accepted)*20000 + int64(reviewed)) / (2 * int64(reviewed))
	return float64(tenThousandths) / 10000
}

// ClientMetrics are one API client's metrics, for the reviewers' overview.
type ClientMetrics struct {
	ID           int64             `json:"id"`
	Name         string            `json:"name"`
	Active       bool              `json:"active"`
	Organization int64             `json:"organization"`
	Metrics      AcceptanceMetrics `json:"metrics"`
	// the client's Trends
	Weekly      []WeekMetrics       `json:"weekly"`
	Calibration []ConfidenceMetrics `json:"calibration"`
}

// Overview is the reviewers' overview: how each API client that proposed
// anything fared, and all of them together, without a window; and the
// Trends of all of them together.
type Overview struct {
	Completeness CompletenessOverview `json:"completeness"`
	Clients      []ClientMetrics      `json:"clients"`
	All          AcceptanceMetrics    `json:"all"`
	Weekly       []WeekMetrics        `json:"weekly"`
	Calibration  []ConfidenceMetrics  `json:"calibration"`
}
