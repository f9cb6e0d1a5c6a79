package enrichment

import "time"

// TrendWeeks is how many weeks of decisions the reviewers' overview charts:
// the current week and the ones before it.
const TrendWeeks = 12

// Trends is how an API client's decided proposals fared over time and by
// confidence, for the reviewers' overview. Like AcceptanceMetrics, only
// accepted and rejected revisions count: superseded and expired ones are
// never reviewed.
type Trends struct {
	// Weekly holds the last TrendWeeks weeks, oldest first; a decision
	// counts in the week of its reviewedAt.
	Weekly []WeekMetrics `json:"weekly"`
	// Calibration holds the decided proposals sent with a confidence, in ten
	// buckets of ten points (0-9 … 90-100).
	Calibration []ConfidenceMetrics `json:"calibration"`
}

// WeekMetrics counts the decisions of one week, Monday 00:00 UTC to the next.
type WeekMetrics struct {
	Week           string  `json:"week"` // its Monday, 2006-01-02
	Reviewed       int     `json:"reviewed"`
	Accepted       int     `json:"accepted"`
	AcceptanceRate float64 `json:"acceptanceRate"`
}

// ConfidenceMetrics counts the decided proposals with a confidence from From
// to To, both included.
type ConfidenceMetrics struct {
	From           int     `json:"from"`
	To             int     `json:"to"`
	Reviewed       int     `json:"reviewed"`
	Accepted       int     `json:"accepted"`
	AcceptanceRate float64 `json:"acceptanceRate"`
}

// WeekStart is the Monday 00:00 UTC that begins t's week.
func WeekStart(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
}

// TrendsSince is when the weeks of NewTrends(now) begin.
func TrendsSince(now time.Time) time.Time {
	return WeekStart(now).AddDate(0, 0, -7*(TrendWeeks-1))
}

// NewTrends is the trends of nothing in the TrendWeeks weeks up to now: every
// week and every confidence bucket listed, with zeros.
func NewTrends(now time.Time) Trends {
	t := Trends{Weekly: make([]WeekMetrics, TrendWeeks), Calibration: make([]ConfidenceMetrics, 10)}
	since := TrendsSince(now)
	for i := range t.Weekly {
		t.Weekly[i].Week = since.AddDate(0, 0, 7*i).Format(time.DateOnly)
	}
	for i := range t.Calibration {
		t.Calibration[i] = ConfidenceMetrics{From: 10 * i, To: 10*i + 9}
	}
	t.Calibration[9].To = 100
	return t
}

// CountWeek adds n decisions of status reviewed on day (2006-01-02); days
// outside the weeks are ignored.
func (t *Trends) CountWeek(day, status string, n int) {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return
	}
	week := WeekStart(d).Format(time.DateOnly)
	for i := range t.Weekly {
		if w := &t.Weekly[i]; w.Week == week {
			w.Reviewed, w.Accepted = countDecision(w.Reviewed, w.Accepted, status, n)
		}
	}
}

// CountConfidence adds n decisions of status with a confidence in bucket
// (confidence / 10, 100 in the last).
func (t *Trends) CountConfidence(bucket int, status string, n int) {
	bucket = min(max(bucket, 0), len(t.Calibration)-1)
	c := &t.Calibration[bucket]
	c.Reviewed, c.Accepted = countDecision(c.Reviewed, c.Accepted, status, n)
}

// countDecision adds n decisions of status to a reviewed and accepted pair.
func countDecision(reviewed, accepted int, status string, n int) (int, int) {
	switch status {
	case StatusAccepted:
		return reviewed + n, accepted + n
	case StatusRejected:
		return reviewed + n, accepted
	}
	return reviewed, accepted
}

// Add adds the counts of o, which covers the same weeks.
func (t *Trends) Add(o Trends) {
	for i := range t.Weekly {
		t.Weekly[i].Reviewed += o.Weekly[i].Reviewed
		t.Weekly[i].Accepted += o.Weekly[i].Accepted
	}
	for i := range t.Calibration {
		t.Calibration[i].Reviewed += o.Calibration[i].Reviewed
		t.Calibration[i].Accepted += o.Calibration[i].Accepted
	}
}

// Finish computes the rates from the counts.
func (t *Trends) Finish() {
	for i := range t.Weekly {
		w := &t.Weekly[i]
		w.AcceptanceRate = Rate(w.Accepted, w.Reviewed)
	}
	for i := range t.Calibration {
		c := &t.Calibration[i]
		c.AcceptanceRate = Rate(c.Accepted, c.Reviewed)
	}
}
