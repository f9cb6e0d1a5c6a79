package enrichment

// AcceptanceMetrics is GET /acceptance-rate's body: how one API client's
// proposals fared within a window.
type AcceptanceMetrics struct {
	TotalSubmitted   int           `json:"totalSubmitted"` // reviewed + pending
	Reviewed         int           `json:"reviewed"`       // accepted + rejected
	Accepted         int           `json:"accepted"`
	Rejected         int           `json:"rejected"`
	Pending          int           `json:"pending"`
	AcceptanceRate   float64       `json:"acceptanceRate"`
	ByConfidenceBand []BandMetrics `json:"byConfidenceBand"`
}

// BandMetrics are the decided proposals of one confidence band.
type BandMetrics struct {
	Band           string  `json:"band"`
	Reviewed       int     `json:"reviewed"`
	Accepted       int     `json:"accepted"`
	AcceptanceRate float64 `json:"acceptanceRate"`
}
